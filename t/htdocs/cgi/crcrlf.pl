#!/usr/bin/perl
# Header lines ending "\r\r\n", as a :crlf output layer writes "\r\n"
# (t/39): httpd's scanner for mod_cgi drops every CR of a line.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\r\r\nX-Layer: crlf\r\r\n\r\r\ncrlf layer\n";
    CGIplus::finish();
}
