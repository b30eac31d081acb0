#!/usr/bin/perl
# CGI::Carp's carpout: this script's warnings go to a file of its own
# (the directory is the query).
use CGI::Carp qw(carpout);
BEGIN { open(LOG, '>>', "$ENV{QUERY_STRING}/carpout.log") or die "log: $!"; carpout(LOG); }
print "Content-Type: text/plain\n\n";
warn "carpout-marker\n";
print "logged\n";
