#!/usr/bin/perl
# A body with no header at all (the first line has no colon).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "just a body\n";
    CGIplus::finish();
}
