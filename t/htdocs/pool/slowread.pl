#!/usr/bin/perl
# Reads its request body slowly but steadily (t/53_long_upload.t,
# t/53_slow_upload.t): chunk=N bytes (default 65536) every gap=S seconds
# (default 0.03), then says how many bytes it read.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;
use Time::HiRes qw(sleep);

$| = 1;
while (CGIplus::accept()) {
    my %q = map { split /=/, $_, 2 } split /&/, $ENV{QUERY_STRING} // '';
    my ($chunk, $gap) = ($q{chunk} || 65536, $q{gap} // 0.03);
    my ($n, $buf) = (0, '');
    while (1) {
        my $got = read(STDIN, $buf, $chunk);
        last unless $got;
        $n += $got;
        sleep $gap if $gap;
    }
    print "Content-Type: text/plain\n\nread=$n pid=$$\n";
    CGIplus::finish();
}
