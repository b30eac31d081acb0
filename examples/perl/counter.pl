#!/usr/bin/perl
# counter.pl: a per-process request counter; above 1 proves persistence.
use strict;
use warnings;
use FindBin ();
use lib "$FindBin::RealBin/../../lib/perl";
use CGIplus;

my $count = 0;
while (CGIplus::accept()) {
    $count++;
    print "Content-Type: text/plain\n\ncount=$count pid=$$\n";
    CGIplus::finish();
}
