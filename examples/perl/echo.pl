#!/usr/bin/perl
# echo.pl: answers the request body byte for byte (CONTENT_LENGTH bytes).
use strict;
use warnings;
use FindBin ();
use lib "$FindBin::RealBin/../../lib/perl";
use CGIplus;

binmode STDOUT;
my $count = 0;
while (CGIplus::accept()) {
    $count++;
    my $left = ($ENV{CONTENT_LENGTH} // '') =~ /\A([0-9]+)\z/ ? $1 : 0;
    print "Content-Type: application/octet-stream\n",
          "X-Request-Count: $count\nX-Worker-Pid: $$\n\n";
    binmode STDIN;
    while ($left > 0) {
        my $got = read STDIN, my $buf, $left > 65536 ? 65536 : $left;
        last unless $got;       # body ended early, or an error
        print $buf;
        $left -= $got;
    }
    CGIplus::finish();
}
