#!/usr/bin/perl
# Reports what the kernel's OOM killer would make of this worker
# (t/57_worker_oom.t): its oom_score_adj, its child's (a script's own
# children are as much its memory), and whether it may lower its own
# (to 0, and below the runner's 0).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;
use POSIX ();

$| = 1;
sub slurp { open my $fh, '<', $_[0] or return "? ($!)"; my $v = <$fh> // ''; chomp $v; $v }
while (CGIplus::accept()) {
    print "Content-Type: text/plain\n\n";
    print "pid=$$\n";
    my $adj = slurp('/proc/self/oom_score_adj');
    print "adj=$adj\n";
    pipe my $rd, my $wr or die "pipe: $!";
    my $kid = fork // die "fork: $!";
    if (!$kid) {
        close $rd;
        print $wr slurp('/proc/self/oom_score_adj');
        close $wr;
        POSIX::_exit(0);
    }
    close $wr;
    my $child = do { local $/; <$rd> } // '';
    waitpid $kid, 0;
    print "child_adj=$child\n";
    # Below the floor root set needs CAP_SYS_RESOURCE; raising is free.
    for my $try ([ lower => 0 ], [ below_runner => -1 ]) {
        my ($name, $v) = @$try;
        my $got = 'done';
        if (open my $fh, '>', '/proc/self/oom_score_adj') {
            $got = "refused ($!)" unless (print {$fh} "$v\n") && close $fh;
        } else {
            $got = "refused ($!)";
        }
        print "$name=$got\n";
    }
    print "adj_after=", slurp('/proc/self/oom_score_adj'), "\n";
    # put back what it was (raising needs no privilege), for the score comparison
    if (open my $fh, '>', '/proc/self/oom_score_adj') { print {$fh} "$adj\n"; close $fh }
    CGIplus::finish();
}
