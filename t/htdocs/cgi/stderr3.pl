#!/usr/bin/perl
# More stderr than a pipe holds, before any stdout: must not deadlock.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print STDERR ("x" x 1000, "\n") for 1 .. 100;
    print "Content-Type: text/plain\n\nthis is more stdout\n";
    CGIplus::finish();
}
