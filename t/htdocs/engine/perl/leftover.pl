#!/usr/bin/perl
# leftover.pl (t/58_engine_leftover.t): ?leave answers, then forks a child
# that keeps STDOUT, prints a line 1.5 s later and then writes the flag
# file; ?daemon the same from a grandchild whose parent exits at once (a
# double fork); ?thread does the same from a detached thread (ithreads),
# once ?slow has started; ?slow (another request to the same engine)
# answers once that flag is written or the engine that served ?leave or
# ?thread is gone.
use strict;
use warnings;
use File::Basename qw(dirname);
use POSIX ();
my $logs = dirname(__FILE__) . '/../../../logs';
my ($flag, $pidf, $go) = map { "$logs/engine_leftover_$_" } qw(flag pid go);
my $q = $ENV{QUERY_STRING} // '';
$| = 1;
print "Content-Type: text/plain\n\nanswer to $q\n";
my $late = sub {
    my ($who) = @_;
    if ($who eq 'thread') {
        for (1 .. 600) { last if -s $go; select undef, undef, undef, 0.05 }
    }
    else {
        select undef, undef, undef, 1.5;
    }
    print "late output of the $who\n";
    STDOUT->flush;
    open my $f, '>', $flag or die "$flag: $!";
    print $f "done\n";
    close $f;
};

if ($q eq 'leave' || $q eq 'daemon' || $q eq 'thread') {
    for my $f ($flag, $go) {
        open my $fh, '>', $f or die "$f: $!";
        close $fh;
    }
    open my $fh, '>', $pidf or die "$pidf: $!";
    print $fh "$$\n";
    close $fh;
    if ($q eq 'thread') {
        require threads;
        threads->create($late, 'thread')->detach;
    }
    else {
        my $pid = fork // die "fork: $!";
        if (!$pid) {
            POSIX::_exit(0) if $q eq 'daemon' && fork;
            $late->('child');
            exit 0;
        }
        waitpid $pid, 0 if $q eq 'daemon';
    }
}
elsif ($q eq 'slow') {
    open my $g, '>', $go or die "$go: $!";
    print $g "go\n";
    close $g;
    open my $fh, '<', $pidf or die "$pidf: $!";
    my $epid = <$fh> // 0;
    chomp $epid;
    close $fh;
    for (1 .. 600) {
        last if -s $flag || !kill 0, $epid;
        select undef, undef, undef, 0.05;
    }
}
