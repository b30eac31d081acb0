# t/47_security_fcgi.t: what a hostile script can reach of a FastCGI
# worker of another pool that connects per request (its listening socket,
# mode 0666 in the runner's spool directory; httpd's children hold O_PATH
# descriptors of its name and connect through /proc/self/fd/N; the runner
# keeps a copy of the socket), of httpd's children and of the runner.
# ?victim=PID&children=PID,...&runner=PID: one line per probe.
use strict;
use warnings;
use Socket qw(AF_UNIX SOCK_STREAM pack_sockaddr_un);

my %SYS = (pidfd_open => 434, pidfd_getfd => 438, process_vm_readv => 310); # x86_64

sub reach_err { my ($e) = @_; return $!{EACCES} || $!{EPERM} ? "refused ($e)" : "error ($e)" }

sub reach_connect {
    my ($path) = @_;
    socket(my $s, AF_UNIX, SOCK_STREAM, 0) or return "error ($!)";
    return connect($s, pack_sockaddr_un($path)) ? 'connected' : reach_err($!);
}

# Every FastCGI listening socket the runner bound, from /proc/net/unix
# (which any process may read), and whether a connect by name gets in.
sub reach_sockets {
    open my $fh, '<', '/proc/net/unix' or return ("unreadable ($!)", '');
    my %paths = map { m{\s(/\S*/fcgi-\d+-\d+\.sock)$} ? ($1 => 1) : () } <$fh>;
    my %res;
    $res{reach_connect($_)}++ for sort keys %paths;
    my ($one) = sort keys %paths;
    my $dir = '';
    if ($one) {
        (my $d = $one) =~ s{/[^/]*$}{};
        my @st = stat $d;
        $dir = @st ? sprintf('%04o uid=%d', $st[2] & 07777, $st[4]) : "unstattable ($!)";
    }
    return (scalar(keys %paths) . ' found: ' . join(', ', map { "$_ x$res{$_}" } sort keys %res), $dir);
}

# What of process $pid this process may take: its descriptors listed,
# one taken (pidfd_getfd), a connect through /proc/PID/fd/N (every N it
# has, or 0-63 unlisted), its memory read (process_vm_readv).
sub reach_process {
    my ($pid, $name) = @_;
    my $out = '';
    my @fds;
    if (opendir my $dh, "/proc/$pid/fd") {
        @fds = sort { $a <=> $b } grep { /^\d+$/ } readdir $dh;
        $out .= "${name}_fds=listed (@fds)\n";
    } else {
        $out .= "${name}_fds=" . reach_err($!) . "\n";
    }
    my %res;
    $res{reach_connect("/proc/$pid/fd/$_")}++ for (@fds ? @fds : 0 .. 63);
    $out .= "${name}_connect=" . join(', ', map { "$_ x$res{$_}" } sort keys %res) . "\n";
    my $pidfd = syscall($SYS{pidfd_open}, $pid + 0, 0);
    if ($pidfd < 0) {
        $out .= "${name}_getfd=" . reach_err($!) . " (pidfd_open)\n";
    } else {
        my %got;
        for my $n (@fds ? @fds : 0 .. 15) {
            my $fd = syscall($SYS{pidfd_getfd}, $pidfd, $n + 0, 0);
            if ($fd >= 0) {
                my $what = readlink("/proc/self/fd/$fd") // '?';
                $what =~ s/:.*//;
                $got{"took $what"}++;
                POSIX::close($fd);
            } elsif (!$!{EBADF}) {
                $got{reach_err($!)}++;
            }
        }
        POSIX::close($pidfd);
        $out .= "${name}_getfd=" . join(', ', sort keys %got) . "\n";
    }
    my $addr = 0x400000;
    if (open my $m, '<', "/proc/$pid/maps") {
        my $l = <$m> // '';
        $addr = hex($1) if $l =~ /^([0-9a-f]+)-/;
    }
    my $buf = "\0" x 16;
    my $local = pack('P Q', $buf, 16);
    my $remote = pack('Q Q', $addr, 16);
    my $n = syscall($SYS{process_vm_readv}, $pid + 0, $local, 1, $remote, 1, 0);
    $out .= "${name}_mem=" . ($n > 0 ? 'read' : reach_err($!)) . "\n";
    return $out;
}

sub reach_report {
    my ($q) = @_;
    require POSIX;
    my %a = map { /^(\w+)=([\d,]+)$/ ? ($1 => $2) : () } split /&/, $q // '';
    my ($sock, $dir) = reach_sockets();
    my $out = "pid=$$\nsockets=$sock\nspool=$dir\n";
    $out .= reach_process($a{victim}, 'victim') if $a{victim};
    my $i = 0;
    $out .= reach_process($_, 'child' . $i++) for split /,/, $a{children} // '';
    $out .= reach_process($a{runner}, 'runner') if $a{runner};
    # its own descriptors, but the one that lists them
    opendir my $dh, '/proc/self/fd' or return $out . "own_fds=unlisted ($!)\n";
    my @own = grep { /^\d+$/ && $_ != fileno($dh) } readdir $dh;
    my @desc = map { my $l = readlink("/proc/self/fd/$_") // '?'; $l =~ s/:.*//; "$_:$l" }
               sort { $a <=> $b } @own;
    return $out . "own_fds=@desc\n";
}
1;
