#!/usr/bin/perl
# An unmodified CGI.pm hello (t/58_engine_perl.t, bench/).
use strict;
use warnings;
use CGI;

my $q = CGI->new;
print $q->header('text/plain'), "hello\n";
