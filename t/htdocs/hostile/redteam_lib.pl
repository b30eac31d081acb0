# t/47_security_redteam.t: what a hostile script reaches of httpd's
# children, the runner (its threads included: the pools' domain threads)
# and another pool's worker, past what t/47_security.t and
# t/47_security_fcgi.t probe: the /proc files that need ptrace access,
# ptrace and thread signals, the runtime directory's files, a terminal to
# push input into, and its own descriptors. It also writes stderr lines
# that pose as the runner's (the test reads how they were logged).
# ?victim=PID&children=PID,...&runner=PID&rundir=PATH&key=PATH&tag=WORD:
# one line per probe.
use strict;
use warnings;
use POSIX ();

my %RT = (ptrace => 101, tgkill => 234, ioctl => 16); # x86_64
my $PTRACE_SEIZE = 0x4206;
my $TIOCSTI = 0x5412;

sub rt_err { my ($e) = @_; return $!{EACCES} || $!{EPERM} ? "refused ($e)" : "error ($e)" }

# Each of a process's /proc files that need ptrace access (or its
# owner's rights), and its threads' own: those this process could read or
# list ("none"), of how many there were. fd/ is left out: a worker of the
# same user may list another's descriptor numbers (docs/RUNNER.md).
my @FILES = qw(mem environ auxv stack syscall io smaps maps pagemap personality fdinfo/0);
my @DIRS = qw(map_files fdinfo);
sub rt_proc {
    my ($pid) = @_;
    my (%got, $n);
    opendir my $td, "/proc/$pid/task" or return "gone ($!)";
    my @tids = grep { /^\d+$/ } readdir $td;
    for my $base ("/proc/$pid", map { "/proc/$pid/task/$_" } @tids) {
        for my $f (@FILES) {
            next unless -e "$base/$f" || !$!{ENOENT};
            $n++;
            my $fh;
            $got{$f}++ if open($fh, '<', "$base/$f") && sysread($fh, my $buf, 64);
        }
        for my $d (@DIRS) {
            next unless -e "$base/$d" || !$!{ENOENT};
            $n++;
            my $dh;
            $got{"$d/"}++ if opendir($dh, "$base/$d") && grep { /\d/ } readdir $dh;
        }
    }
    return (%got ? join(' ', sort keys %got) : 'none') . " of $n";
}

# ptrace(PTRACE_SEIZE) of the process and of each of its threads, and a
# signal 0 to each thread (tgkill): "K of N" that succeeded.
sub rt_trace {
    my ($pid) = @_;
    my ($n, $tr, $sig) = (0, 0, 0);
    opendir my $td, "/proc/$pid/task" or return ("gone ($!)", '');
    for my $tid (grep { /^\d+$/ } readdir $td) {
        $n++;
        if (syscall($RT{ptrace}, $PTRACE_SEIZE, $tid + 0, 0, 0) == 0) {
            $tr++;
            syscall($RT{ptrace}, 17, $tid + 0, 0, 0); # PTRACE_DETACH
        }
        $sig++ if syscall($RT{tgkill}, $pid + 0, $tid + 0, 0) == 0;
    }
    return ("$tr of $n", "$sig of $n");
}

# The runtime directory: the runner's configuration (CGIplusSetEnv values,
# users), its spool, the response spool (root's, httpd's Group may make
# files, not list them) and the key file.
sub rt_files {
    my (%a) = @_;
    my $out = '';
    my $d = $a{rundir} // '';
    for (['conf', "$d/cgiplus-runner.conf"], ['keyfile', $a{key} // '']) {
        my ($n, $p) = @$_;
        $out .= "$n=" . (open(my $fh, '<', $p) ? 'read' : rt_err($!)) . "\n";
    }
    for (['spool', "$d/cgiplus-spool"], ['respool', "$d/cgiplus-response"]) {
        my ($n, $p) = @$_;
        $out .= "${n}_list=" . (opendir(my $dh, $p) ? 'listed' : rt_err($!)) . "\n";
    }
    # nothing made in the spool reaches anyone: O_TMPFILE (no name)
    my $fd = POSIX::open("$d/cgiplus-spool/x$$", POSIX::O_WRONLY() | POSIX::O_CREAT(), 0600);
    $out .= 'spool_create=' . (defined $fd ? 'made' : rt_err($!)) . "\n";
    if (defined $fd) { POSIX::close($fd); unlink "$d/cgiplus-spool/x$$"; }
    # the pidfile and the socket: their own modes say who may write
    $out .= 'pidfile_write=' . (open(my $pw, '>>', "$d/cgiplus-runner.pid") ? 'opened' : rt_err($!)) . "\n";
    $out .= 'sock_chmod=' . (chmod(0777, "$d/cgiplus-runner.sock") ? 'changed' : rt_err($!)) . "\n";
    return $out;
}

# A terminal to push characters into (TIOCSTI): none, it is a session
# leader without one, and its descriptors are pipes and sockets.
sub rt_tty {
    my $out = 'devtty=' . (open(my $t, '+<', '/dev/tty') ? 'opened' : "error ($!)") . "\n";
    my %r;
    for my $fd (0 .. 2) {
        my $c = 'x';
        $r{syscall($RT{ioctl}, $fd, $TIOCSTI, $c) == 0 ? 'pushed' : "error ($!)"}++;
    }
    return $out . 'tiocsti=' . join(', ', map { "$_ x$r{$_}" } sort keys %r) . "\n";
}

# stderr lines posing as the runner's: the test reads that each is logged
# behind the script's own prefix, its control characters escaped.
sub rt_forge {
    my ($tag, $runner) = @_;
    my $ts = POSIX::strftime('[%a %b %d %H:%M:%S.000000 %Y]', localtime);
    print STDERR "$ts [cgiplus-runner:error] [pid $runner] CGIPLUS2200: forged-$tag line one\n",
                 "\r$ts [cgiplus-runner:error] [pid $runner] CGIPLUS2200: forged-$tag line two\e[2K\n";
}

sub redteam_report {
    my ($q) = @_;
    my %a = map { /^(\w+)=([\w.,\/-]*)$/ ? ($1 => $2) : () } split /&/, $q // '';
    my $out = "pid=$$\n";
    my %who = (runner => $a{runner}, victim => $a{victim});
    my $i = 0;
    $who{'child' . $i++} = $_ for split /,/, $a{children} // '';
    for my $w (sort keys %who) {
        next unless $who{$w};
        $out .= "${w}_proc=" . rt_proc($who{$w}) . "\n";
        my ($tr, $sig) = rt_trace($who{$w});
        $out .= "${w}_ptrace=$tr\n${w}_tgkill=$sig\n";
    }
    $out .= rt_files(%a) . rt_tty();
    rt_forge($a{tag}, $a{runner} // 1) if $a{tag};
    opendir my $dh, '/proc/self/fd' or return $out . "own_fds=unlisted ($!)\n";
    my @own = grep { /^\d+$/ && $_ != fileno($dh) } readdir $dh;
    my @desc = map { my $l = readlink("/proc/self/fd/$_") // '?'; $l =~ s/:.*//; "$_:$l" }
               sort { $a <=> $b } @own;
    return $out . "own_fds=@desc\n";
}
1;
