#!/usr/bin/perl
# A compile perl ends with a die of its own, not with errors it gathered
# (perl 5.22+ dies at `defined(%hash)`, as Debian's drraw.cgi does), under
# CGI::Carp's fatalsToBrowser: CGI::Carp's page shows perl's message alone,
# no "Execution of ... aborted due to compilation errors." (t/58_engine_idioms.t).
use strict;
use CGI::Carp qw(fatalsToBrowser);
my %seen;
print "Content-Type: text/plain\n\nnever\n" if defined(%seen);
