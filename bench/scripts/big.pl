#!/usr/bin/perl
# bench/slow-readers: a large response written at once, size=N bytes
# (default 8 MiB) of 64-byte lines. The library comes from BENCH_LIB
# (CGIplusSetEnv), so a copy of this file runs anywhere.
use strict;
use warnings;
use lib ($ENV{BENCH_LIB} // '.');
use CGIplus;

$| = 1;
while (CGIplus::accept()) {
    my ($size) = ($ENV{QUERY_STRING} // '') =~ /size=(\d+)/;
    $size //= 8 * 1024 * 1024;
    print "Content-Type: application/octet-stream\n\n";
    my $block = join '', map { sprintf('%010d', $_) . ('.' x 53) . "\n" } 0 .. 1023;
    my $left = $size;
    while ($left > 0) {
        my $n = $left < length $block ? $left : length $block;
        print substr($block, 0, $n);
        $left -= $n;
    }
    CGIplus::finish();
}
