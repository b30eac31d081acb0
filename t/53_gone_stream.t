# A client that leaves an endless stream does not hold its worker until an
# output timeout (600 s here; FastCGI: below). Under mod_cgi(d) the
# script's next write fails once httpd stops reading, and it dies; here a
# persistent worker gets 5 s to reach its sentinel (then it serves again),
# else it is stopped (2504 on the direct path, 2084 relayed) and replaced,
# never reused dirty. A FastCGI application is sent ABORT_REQUEST first and
# its connection is shut (fcgi_app ignores both, as libfcgi programs do);
# as a FastCGI script may run on by design (PHP's ignore_user_abort), it
# has what was left of its pool's output timeout (15 s here), not 5 s,
# then is stopped as a timed-out request's worker (2954, both paths). A
# plain CGI process under CGIplusCompat dies as under mod_cgid. The client
# is a real curl, killed after the first bytes; the first request on its
# connection makes the second one take the direct path where the pool has
# one.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use POSIX ();
use Time::HiRes qw(sleep);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget status wait_for);

my $vars = Apache::Test::config()->{vars};
my $errlog = "$vars->{t_logs}/error_log";
sub log_text { open my $fh, '<', $errlog or return ''; local $/; return <$fh> }

my @cases = (
    # the endless stream, a plain request to the same pool, what it is, the
    # log line when it is stopped
    ['/pool/gone/app.pl?ticks=1000000&gap=0.01', '/pool/gone/app.pl', 'CGIplus, direct', 2504],
    ['/pool/gone_relay/app.pl?ticks=1000000&gap=0.01', '/pool/gone_relay/app.pl',
     'CGIplus, relayed', 2084],
    ['/fcgig/app?lines=1000000', '/fcgig/app', 'FastCGI, direct', 2954],
    ['/fcgigr/app?lines=1000000', '/fcgigr/app', 'FastCGI, relayed', 2954],
    ['/compat/forever.cgi', '/compat/who.cgi', 'plain CGI under CGIplusCompat', 0],
    ['/compat-off/forever.cgi', '/compat-off/who.cgi', 'mod_cgid (the peer)', 0],
);
# mod_cgid is loaded by t/run-apache-test (modules.conf), which Apache::Test's
# need_cgi does not see unless the system enables it (a fresh Debian does not)
plan tests => 4 * @cases - 4;

# curl fetches $warm then $stream on one connection (0.5 s apart: the
# runner publishes the worker after its first response), into out file $n.
# Returns curl's pid; it is killed once the stream has sent its pid and a
# few lines (stream_pid). The cases run at once: their timeouts overlap.
sub stream_start {
    my ($n, $warm, $stream) = @_;
    my $out = "$vars->{t_logs}/gone_stream.$n.out";
    unlink $out;
    my $base = "http://127.0.0.1:$vars->{port}";
    my $curl = fork // die "fork: $!";
    if (!$curl) {
        open STDERR, '>', '/dev/null';
        { exec 'curl', '-s', '-N', '--rate', '2/s', '-o', '/dev/null', '-o', $out, "$base$warm",
               "$base$stream" }
        POSIX::_exit(127);
    }
    return $curl;
}

# The script's pid once the stream of case $n has sent it and 5 lines
# (0: it never did); its client leaves then.
sub stream_pid {
    my ($n, $curl) = @_;
    my $out = "$vars->{t_logs}/gone_stream.$n.out";
    my $pid = wait_for(sub {
        open my $fh, '<', $out or return 0;
        local $/;
        my $t = <$fh> // '';
        return $t =~ /pid=(\d+)/ && ($t =~ tr/\n//) >= 5 ? $1 : 0;
    }, 30, 0.05);
    kill 'KILL', $curl;
    waitpid $curl, 0;
    return $pid;
}

# The worker of pid runs no request: it is idle, or gone.
sub free {
    my ($pid) = @_;
    my $st = eval { status() } or return 0;
    for my $p (@{ $st->{pools} }) {
        for my $w (@{ $p->{workers} }) {
            return 0 if $w->{pid} == $pid && $w->{state} ne 'idle';
        }
    }
    return 1;
}

# A process that is gone (reaped).
sub gone {
    my ($pid) = @_;
    open my $fh, '<', "/proc/$pid/stat" or return 1;
    return 0;
}

my $log0 = length log_text();
my @curls = map { stream_start($_, $cases[$_][1], $cases[$_][0]) } 0 .. $#cases;
my @pids = map { stream_pid($_, $curls[$_]) } 0 .. $#cases;
for my $n (0 .. $#cases) {
    my ($endless, $plain, $what, $logno) = @{ $cases[$n] };
    my $pid = $pids[$n];
    ok t_cmp($pid ? 1 : 0, 1, "$what: the stream began (pid $pid)");
    if (!$logno) {
        # a plain CGI process: it dies, as under mod_cgi
        ok t_cmp(wait_for(sub { gone($pid) }, 60, 0.1) ? 1 : 0, 1,
                 "$what: the script's process ends once its client left");
        next;
    }
    ok t_cmp(wait_for(sub { free($pid) }, 60, 0.2) ? 1 : 0, 1,
             "$what: its worker runs no request soon after its client left");
    my $log = substr(log_text(), $log0);
    ok t_cmp($log =~ /CGIPLUS$logno: worker pid $pid of \S+ (?:did not reach|still runs|ran past)/ ? 1 : 0, 1,
             "$what: stopped, and logged with its id ($logno)");
    my $r = hget($plain, timeout => 30);
    my ($npid) = $r->{body} =~ /pid=(\d+)/;
    ok t_cmp($r->{code} == 200 && $r->{complete} && ($npid // $pid) != $pid &&
             $r->{body} !~ /tick|line/ ? 1 : 0, 1,
             "$what: the next request is served whole by a new worker (pid " . ($npid // '-') . ")");
}
