#!/usr/bin/perl
# A hostile script (t/53_callout_flood.t). Query:
#   unread=N: writes N callouts that each want an answer and never reads one
#     (the answers pile up in the runner unless it bounds them);
#   log=N: writes N LOG callouts that ask for no answer, as fast as it can;
#   then answers normally (a worker that survives says how many it wrote).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

$| = 1;
while (CGIplus::accept()) {
    my %q = map { split /=/, $_, 2 } split /&/, $ENV{QUERY_STRING} // '';
    my ($esc, $eot) = ($ENV{CGIPLUSESC}, $ENV{CGIPLUSEOT});
    if (my $n = $q{unread}) {
        # An unknown keyword of 40 bytes: each answer names it (about 60 bytes).
        my $one = "$esc\n" . ('X' x 40) . "\n$eot\n";
        my $chunk = $one x 100;
        syswrite STDOUT, $chunk for 1 .. $n / 100;
    }
    if (my $n = $q{log}) {
        my $chunk = join '', map { "$esc\n!LOG: flood line $_\n$eot\n" } 1 .. 100;
        syswrite STDOUT, $chunk for 1 .. $n / 100;
    }
    print "Content-Type: text/plain\n\nsurvived pid=$$\n";
    CGIplus::finish();
}
