#!/usr/bin/perl
# hello_cgipm.pl: an unmodified CGI.pm hello, as CGI scripts are written
# (bench/engines runs it under mod_cgid and through the Perl engine).
use strict;
use warnings;
use CGI;

my $q = CGI->new;
print $q->header('text/plain'), "Hello from CGI.pm\n";
