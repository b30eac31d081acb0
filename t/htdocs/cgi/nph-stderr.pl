#!/usr/bin/perl
# nph- with stderr.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print STDERR "this is nph-stderr\n";
    print "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nthis is nph-stdout\n";
    CGIplus::finish();
}
