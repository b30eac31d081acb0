#!/usr/bin/perl
# As carpcroak.pl, after an error perl gathered: CGI::Carp's page shows
# both, the gathered one first (t/58_engine_idioms.t).
use strict;
use CGI::Carp qw(fatalsToBrowser);
$carp_croak_undeclared = 1;
my %seen;
print "Content-Type: text/plain\n\nnever\n" if defined(%seen);
