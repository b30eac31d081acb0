#!/usr/bin/perl
# A script that does not compile, under CGI::Carp's fatalsToBrowser (as
# drraw.cgi with a config error): CGI::Carp's error page, 500, with perl's
# message (t/58_engine_idioms.t).
use strict;
use CGI::Carp qw(fatalsToBrowser);
use CGI;
my $q = CGI->new;
print $q->header('text/plain'), $carp_compile_undeclared, "\n";
