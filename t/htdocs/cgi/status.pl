#!/usr/bin/perl
# Status: 202 with a body.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Status: 202 Accepted\nContent-Type: text/plain\n\naccepted\n";
    CGIplus::finish();
}
