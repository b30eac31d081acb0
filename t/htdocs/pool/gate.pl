#!/usr/bin/perl
# Reads its request body only when let (t/52_body_write_error.t): writes
# its pid into logs/gate-NAME (?name=NAME; the test made it, writable by
# all), waits until the test removes it (at most 15 s), then reads its
# body to its end and says how many bytes it read. Meanwhile the test
# finds its stdin.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;
use Time::HiRes qw(sleep);

$| = 1;
while (CGIplus::accept()) {
    my %q = map { split /=/, $_, 2 } split /&/, $ENV{QUERY_STRING} // '';
    my ($name) = ($q{name} // '') =~ /^([a-z0-9]+)$/;
    if ($name) {
        my $f = "$FindBin::Bin/../../logs/gate-$name";
        if (open my $fh, '>', $f) {
            print $fh "$$\n";
            close $fh;
            for (1 .. 750) { last unless -e $f; sleep 0.02 }
        }
    }
    my ($n, $buf) = (0, '');
    while (my $got = read(STDIN, $buf, 65536)) {
        $n += $got;
    }
    print "Content-Type: text/plain\n\nread=$n pid=$$\n";
    CGIplus::finish();
}
