#!/usr/bin/perl
# As carpcompile.pl, a module missing (drraw.cgi without RRDs): perl's
# message lists @INC, perl's as under CGI, not the engine's own directory.
use strict;
use CGI::Carp qw(fatalsToBrowser);
use CGIplusTest::No::Such::Module;
print "Content-Type: text/plain\n\nnever\n";
