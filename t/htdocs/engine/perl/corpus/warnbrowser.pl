#!/usr/bin/perl
# CGI::Carp's warningsToBrowser: warnings before it are held, then printed
# as HTML comments once the header is out.
use CGI::Carp qw(warningsToBrowser fatalsToBrowser);
warn "corpus-early-warning\n";
print "Content-Type: text/html\n\n<p>page</p>\n";
warningsToBrowser(1);
warn "corpus-late-warning\n";
print "<p>end</p>\n";
