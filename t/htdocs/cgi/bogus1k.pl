#!/usr/bin/perl
# About 1 KiB of stderr, then a bad header: about 1 KiB per script log entry.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print STDERR "bogus1k ", "k" x 100, "\n" for 1 .. 10;
    print "Not a header\n\n";
    CGIplus::finish();
}
