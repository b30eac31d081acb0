#!/usr/bin/perl
# Server-sent events: 5 (or ?N) events, one every 200 ms (or ?N,ms),
# each flushed as it is written. No extra directive is needed.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

use Time::HiRes qw(sleep);
while (CGIplus::accept()) {
    my ($n, $ms) = (($ENV{QUERY_STRING} // '') =~ /^(\d+)(?:,(\d+))?/);
    $n ||= 5;
    $ms ||= 200;
    my $nabort = ($ENV{QUERY_STRING} // '') =~ /noabort/;
    local $| = 1;
    print "Content-Type: text/event-stream\nCache-Control: no-cache\n";
    print "Script-Control: no-abort\n" if $nabort;
    print "\n";
    for my $i (1 .. $n) {
        print "data: event $i\n\n";
        sleep($ms / 1000) if $i < $n;
    }
    CGIplus::finish();
}
