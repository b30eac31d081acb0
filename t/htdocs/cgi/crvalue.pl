#!/usr/bin/perl
# A stray CR inside a header value (t/39): dropped, as httpd's scanner for
# mod_cgi drops it.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\nX-Odd: a\rb\n\nodd value\n";
    CGIplus::finish();
}
