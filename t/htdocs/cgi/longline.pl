#!/usr/bin/perl
# One header line longer than httpd's scanner takes (8189 bytes).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\nX-Long: ", "l" x 9000, "\n\nbody\n";
    CGIplus::finish();
}
