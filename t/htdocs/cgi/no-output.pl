#!/usr/bin/perl
# Ends without writing anything.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    CGIplus::finish();
}
