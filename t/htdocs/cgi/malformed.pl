#!/usr/bin/perl
# A header line without a colon.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\nThis is not a header\n\nbody\n";
    CGIplus::finish();
}
