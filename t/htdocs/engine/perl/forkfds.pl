#!/usr/bin/perl
# forkfds.pl (t/58_engine_fork_fds.t): ?leave answers, then forks a child
# that closes its STDIN, STDOUT and STDERR (as a daemon does) and, once
# ?next has started (the go file), writes a line to every descriptor it
# still has (below 100: what httpd inherited from whoever started it, a
# shell's descriptor 251 here, reaches mod_cgid's children, and a write
# there blocked) and lists those the writes went
# to in the flag file; ?next (another client's request to the same engine)
# answers once that list is written (or after 15 s).
use strict;
use warnings;
use File::Basename qw(dirname);
use POSIX ();
my $logs = dirname(__FILE__) . '/../../../logs';
my ($flag, $go) = map { "$logs/engine_forkfds_$_" } qw(flag go);
my $q = $ENV{QUERY_STRING} // '';
$| = 1;
if ($q eq 'leave') {
    for my $f ($flag, $go) {
        open my $fh, '>', $f or die "$f: $!";
        close $fh;
    }
    print "Content-Type: text/plain\n\nanswer to leave\n";
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        POSIX::close($_) for 0, 1, 2;
        for (1 .. 600) { last if -s $go; select undef, undef, undef, 0.05 }
        opendir my $d, '/proc/self/fd' or POSIX::_exit(1);
        my @fds = grep { /\A[0-9]+\z/ && $_ < 100 && $_ != fileno($d) } readdir $d;
        closedir $d;
        my @wrote;
        for my $fd (sort { $a <=> $b } @fds) {
            my $line = "LEFTOVER fd $fd\n";
            my $n = POSIX::write($fd, $line, length $line);
            push @wrote, $fd if $n;
        }
        open my $f, '>', $flag or POSIX::_exit(1);
        print $f "wrote to: @wrote\n";
        close $f;
        POSIX::_exit(0);
    }
}
elsif ($q eq 'next') {
    open my $g, '>', $go or die "$go: $!";
    print $g "go\n";
    close $g;
    for (1 .. 300) { last if -s $flag; select undef, undef, undef, 0.05 }
    print "Content-Type: text/plain\n\nanswer to next\n";
}
else {
    print "Content-Type: text/plain\n\nanswer to $q\n";
}
