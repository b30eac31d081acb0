#!/usr/bin/perl
# A hostile script for t/56_runner_flood.t: it runs as httpd's user, so the
# runner's socket lets it connect, and it tries to use the runner up
# without the key (issue 20, hole 2). Modes:
#
#   flood SOCK SECS PROCS CONNS HALF
#       PROCS processes each keep CONNS connections open for SECS seconds
#       without a HELLO, opening a new one whenever the runner closes one;
#       the first HALF processes send each connection a HELLO header that
#       announces 64 KiB, then 60,000 bytes of it, never the rest. Prints
#       "opened=N closed=M" (M: connections the runner closed meanwhile).
#   idle SOCK N
#       N connections: the even ones send nothing, the odd ones half of a
#       well-formed HELLO. Prints "closed=C of N first=S last=S": how many
#       the runner closed within 6 s, and after how long.
#   big SOCK N
#       N connections each send a header announcing 64 KiB and 1,000 bytes.
#       Prints "closed=C of N last=S".
use strict;
use warnings;
use IO::Socket::UNIX;
use Socket;
use Time::HiRes qw(time sleep);

$| = 1;
$SIG{PIPE} = 'IGNORE';
my ($mode, $sock, @arg) = @ARGV;

sub header { my ($len) = @_; return pack('CCCCnnNN', 0x43, 0x50, 1, 1, 0, 0, 0, $len) }

sub conn {
    my ($first) = @_;
    my $c = IO::Socket::UNIX->new(Peer => $sock, Type => SOCK_STREAM) or return;
    $c->blocking(0);
    syswrite $c, $first if length $first;
    return $c;
}

# 1 when the runner closed c (end of file or reset; it never answers).
sub gone {
    my ($c) = @_;
    my $n = sysread $c, my $buf, 64;
    return defined $n ? 1 : !$!{EAGAIN};
}

# Waits up to $secs for the runner to close each of @c; returns the
# times (seconds after $t0) at which it did.
sub wait_closed {
    my ($t0, $secs, @c) = @_;
    my %open = map { fileno($_) => $_ } @c;
    my @when;
    while (%open && time < $t0 + $secs) {
        my $rin = '';
        vec($rin, $_, 1) = 1 for keys %open;
        next unless select(my $rout = $rin, undef, undef, 0.05) > 0;
        for my $fd (keys %open) {
            next unless vec($rout, $fd, 1) && gone($open{$fd});
            push @when, time - $t0;
            delete $open{$fd};
        }
    }
    return @when;
}

if ($mode eq 'flood') {
    my ($secs, $procs, $conns, $half) = @arg;
    my $end = time + $secs;
    my $big = header(65536) . ('x' x 60000);
    pipe my $rd, my $wr or die "pipe: $!";
    my @kids;
    for my $p (1 .. $procs) {
        my $kid = fork // die "fork: $!";
        if (!$kid) {
            close $rd;
            my $first = $p <= $half ? $big : '';
            my ($opened, $closed) = (0, 0);
            my %c;
            while (time < $end) {
                while (keys %c < $conns && time < $end) {
                    my $c = conn($first) or last;
                    $c{ fileno $c } = $c;
                    $opened++;
                }
                my $rin = '';
                vec($rin, $_, 1) = 1 for keys %c;
                next unless select(my $rout = $rin, undef, undef, 0.1) > 0;
                for my $fd (keys %c) {
                    next unless vec($rout, $fd, 1) && gone($c{$fd});
                    delete $c{$fd};
                    $closed++;
                }
            }
            syswrite $wr, "$opened $closed\n";
            exit 0;
        }
        push @kids, $kid;
    }
    close $wr;
    my ($opened, $closed) = (0, 0);
    while (my $l = <$rd>) {
        my ($o, $c) = split ' ', $l;
        $opened += $o;
        $closed += $c;
    }
    waitpid $_, 0 for @kids;
    print "opened=$opened closed=$closed\n";
} elsif ($mode eq 'idle') {
    my ($n) = @arg;
    my $part = header(40) . ('k' x 20);
    my @c = map { conn($_ % 2 ? $part : '') } 1 .. $n;
    my $t0 = time;
    my @when = sort { $a <=> $b } wait_closed($t0, 6, grep { $_ } @c);
    printf "closed=%d of %d first=%.2f last=%.2f\n", scalar(@when), $n, $when[0] // -1,
        $when[-1] // -1;
} elsif ($mode eq 'big') {
    my ($n) = @arg;
    my @c = map { conn(header(65536) . ('x' x 1000)) } 1 .. $n;
    my $t0 = time;
    my @when = sort { $a <=> $b } wait_closed($t0, 3, grep { $_ } @c);
    printf "closed=%d of %d last=%.2f\n", scalar(@when), $n, $when[-1] // -1;
} else {
    die "usage: $0 flood|idle|big SOCK ...\n";
}
