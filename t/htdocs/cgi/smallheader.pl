#!/usr/bin/perl
# A header block of about 3000 bytes (CGIplusMaxHeaderSize 2048 here);
# ?fit sends one that fits.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    my $n = ($ENV{QUERY_STRING} // '') eq 'fit' ? 5 : 30;
    print "Content-Type: text/plain\n";
    print "X-Filler-$_: ", "f" x 90, "\n" for 1 .. $n;
    print "\nsmall header body\n";
    CGIplus::finish();
}
