#!/usr/bin/perl
# An obsolete folded header line.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\nX-Folded: first part\n  second part\n\nbody\n";
    CGIplus::finish();
}
