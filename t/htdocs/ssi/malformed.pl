#!/usr/bin/perl
# A bad header inside an include.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Not a header\n\nbody\n";
    CGIplus::finish();
}
