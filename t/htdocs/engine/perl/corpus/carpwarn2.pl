#!/usr/bin/perl
# A second script with CGI::Carp's warningsToBrowser (the module already
# loaded in the engine by another).
use CGI::Carp qw(warningsToBrowser);
warn "corpus-second-early\n";
print "Content-Type: text/html\n\n<p>second</p>\n";
warningsToBrowser(1);
