#!/usr/bin/perl
# Location with an absolute URL: 302.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Location: http://example.invalid/elsewhere\n\nthis body is never seen\n";
    CGIplus::finish();
}
