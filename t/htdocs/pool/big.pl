#!/usr/bin/perl
# A large response written as fast as the script can (t/56_slow_readers.t):
# size=N bytes (default 8 MiB) of 64-byte lines, line k being k in ten
# digits, 53 dots and a newline, so a client can check every byte. With
# mark=S: then "MARK", S seconds of nothing, and "END".
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;
use Time::HiRes qw(sleep);

$| = 1;
while (CGIplus::accept()) {
    my %q = map { split /=/, $_, 2 } split /&/, $ENV{QUERY_STRING} // '';
    my $size = $q{size} // 8 * 1024 * 1024;
    print "Content-Type: application/octet-stream\nX-Pid: $$\n\n";
    my ($k, $left) = (0, $size);
    while ($left > 0) {
        my $block = join '', map { sprintf('%010d', $k + $_) . ('.' x 53) . "\n" } 0 .. 1023;
        $k += 1024;
        $block = substr($block, 0, $left) if $left < length $block;
        print $block;
        $left -= length $block;
    }
    if ($q{mark}) {
        print "MARK\n";
        sleep $q{mark};
        print "END\n";
    }
    CGIplus::finish();
}
