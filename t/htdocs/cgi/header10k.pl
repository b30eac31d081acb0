#!/usr/bin/perl
# A 10 KiB header block: fine under the default CGIplusMaxHeaderSize.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\n";
    print "X-Filler-$_: ", "f" x 90, "\n" for 1 .. 100;
    print "\nten k header\n";
    CGIplus::finish();
}
