#!/usr/bin/perl
# The environment of an included script, sorted, and its pid.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\n\n";
    print "$_=$ENV{$_}\n" for sort keys %ENV;
    CGIplus::finish();
}
