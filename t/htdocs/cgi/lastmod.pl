#!/usr/bin/perl
# A fixed Last-Modified: If-Modified-Since decides 200 or 304 (as mod_cgi).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\nLast-Modified: Mon, 01 Jan 2001 00:00:00 GMT\n\nfresh\n";
    CGIplus::finish();
}
