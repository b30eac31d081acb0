#!/usr/bin/perl
# Its command line: the number of arguments, then each on its own line.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\n\n", 'n=', scalar(@ARGV), "\n";
    print "$_\n" for @ARGV;
    CGIplus::finish();
}
