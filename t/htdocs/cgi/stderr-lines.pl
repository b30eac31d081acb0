#!/usr/bin/perl
# ?L,N: N stderr lines of 1000 letters L, written in small pieces so that
# concurrent scripts' lines would mix if anything split them.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    my ($l, $n) = (($ENV{QUERY_STRING} // 'a,10') =~ /^([a-z]),(\d+)/);
    STDERR->autoflush(1);
    for (1 .. $n) {
        print STDERR $l x 250 for 1 .. 4;
        print STDERR "\n";
    }
    print "Content-Type: text/plain\n\nwrote $n lines of $l\n";
    CGIplus::finish();
}
