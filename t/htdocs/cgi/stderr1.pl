#!/usr/bin/perl
# stderr before stdout.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print STDERR "this is stderr\n";
    print "Content-Type: text/plain\n\nthis is stdout\n";
    CGIplus::finish();
}
