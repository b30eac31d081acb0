#!/usr/bin/perl
# stdout before stderr.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\n\nthis is also stdout\n";
    STDOUT->flush;
    print STDERR "this is also stderr\n";
    CGIplus::finish();
}
