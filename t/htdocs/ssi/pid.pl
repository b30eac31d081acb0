#!/usr/bin/perl
# Its pid (the same twice for a persistent worker) and its parent's name.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    open my $fh, '<', "/proc/" . getppid() . "/comm";
    chomp(my $parent = <$fh> // '?');
    print "Content-Type: text/plain\n\npid=$$ parent=$parent\n";
    CGIplus::finish();
}
