#!/usr/bin/perl
# Location with a local path: an internal redirect (the body is dropped).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    my ($dir) = $ENV{SCRIPT_NAME} =~ m{^(.*)/};
    print "Location: $dir/perl.pl\n\nthis body is never seen\n";
    CGIplus::finish();
}
