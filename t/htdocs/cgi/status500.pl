#!/usr/bin/perl
# The script itself answers 500.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Status: 500 Script Says So\nContent-Type: text/plain\n\nscript error page\n";
    CGIplus::finish();
}
