# Streaming responses: a script printing one event every 200 ms reaches
# curl event by event, over HTTP/1.1 (both modes), h2c and h2 over TLS,
# with no extra directive. A client that leaves mid-stream: the module sends
# ABORT and keeps the runner connection once the runner ends the request
# (closes it if a hung runner does not).
# Script stderr: in the error log of the request's virtual host, one whole
# line per log line, never mixed between concurrent scripts.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use Apache::TestRequest ();
use LWP::UserAgent;
use IO::Socket::INET;
use Socket qw(SOL_SOCKET SO_LINGER);
use Time::HiRes qw(time sleep);

plan tests => 4 * 4 + 4 + 3 + 3 + 3;

my $cfg = Apache::Test::config();
my $host = $cfg->{vars}{servername};
my $h1 = 'http://' . Apache::TestRequest::hostport();
my $h2c = "http://$host:" . $cfg->port('cgiplus_h2c');
my $h2tls = "https://$host:" . $cfg->port('cgiplus_h2tls');
my $vhlog = "http://$host:" . $cfg->port('cgiplus_vhlog');

# Runs curl -N; returns the arrival time of each event line and the HTTP
# version curl used. Lines are read as they arrive.
sub events {
    my (@args) = @_;
    open(my $fh, '-|', 'curl', '-sNk', '--max-time', '15',
         '-w', "\nHTTPVERSION=%{http_version}\n", @args) or die "curl: $!";
    my (@t, $ver);
    while (my $l = <$fh>) {
        push @t, time if $l =~ /^data: event \d+$/;
        $ver = $1 if $l =~ /^HTTPVERSION=(\S+)/;
    }
    close $fh;
    return (\@t, $ver // '');
}

for my $case (['HTTP/1.1 plain CGI', '1.1', '--http1.1', "$h1/cgi-plain/sse.pl"],
              ['HTTP/1.1 persistent', '1.1', '--http1.1', "$h1/cgi-plus/sse.pl"],
              ['h2c persistent', '2', '--http2-prior-knowledge', "$h2c/cgi-plus/sse.pl"],
              ['h2 over TLS persistent', '2', '--http2', "$h2tls/cgi-plus/sse.pl"]) {
    my ($name, $want, @args) = @$case;
    my ($t, $ver) = events(@args);
    my @gaps = map { $t->[$_] - $t->[$_ - 1] } 1 .. $#$t;
    ok t_cmp($ver, $want, "$name: HTTP version");
    ok t_cmp(scalar @$t, 5, "$name: 5 events");
    ok t_cmp(@$t ? sprintf('%.2f', $t->[-1] - $t->[0]) >= 0.6 : 0, 1,
             "$name: first to last event >= 600 ms (each came as written)");
    # (lenient: one late event on a loaded machine is not batching)
    ok t_cmp((grep { $_ < 0.05 } @gaps) > 1 ? 'batched' : 'one by one', 'one by one',
             "$name: the events did not arrive together");
}

# The client leaves after about 0.7 s of a 3 s stream: ABORT, the
# runner's END, the connection kept; the next request is fine. Through the
# runner (CGIplusDirect off): a direct request hands its worker back to be
# drained instead (t/54).
my $elog = "$cfg->{vars}{t_logs}/error_log";
my $from = -s $elog;
for my $q ('30,100', '30,100,noabort') {
    system('curl', '-sN', '--max-time', '0.7', '-o', '/dev/null', "$h1/cgi-relay/sse.pl?$q");
}
# the module notices at its next writes (1070), or the reset that write
# met while it waits for the next event (3610); wait up to 5 s for both
my $log = '';
for (1 .. 25) {
    open my $fh, '<', $elog or last;
    seek $fh, $from, 0;
    $log = do { local $/; <$fh> } // '';
    last if 2 <= (() = $log =~ /CGIPLUS108[89]: /g);
    sleep 0.2;
}
my @sent = $log =~ /CGIPLUS(?:1070: client went away during|3610: client reset its connection \(or HTTP\/2 stream\) while) the response of \S+sse\.pl(?:;| waited for the script's output;) sending ABORT/g;
my @ended = $log =~ /CGIPLUS1089: sent ABORT for \S+sse\.pl; the runner ended the request: (\w+) \(worker pid \d+\); the connection is kept/g;
ok t_cmp(scalar @sent, 2, 'the module noticed both clients leaving and sent ABORT');
ok t_cmp("@ended", 'aborted aborted', 'the runner answered each ABORT with END aborted');
my $ua = LWP::UserAgent->new(timeout => 20);
my $r = $ua->get("$h1/cgi-relay/sse.pl?1");
ok t_cmp($r->code, 200, 'the next request after an abort: 200');
ok t_cmp($r->content, "data: event 1\n\n", 'and its body');

# The same with the runner stopped (SIGSTOP: a hung runner) as the client
# leaves: the module's ABORT gets no END within its 2 s, so it closes the
# runner connection (1088) rather than keep one whose state it does not
# know; the runner, running again, reads the ABORT (the request ends
# aborted, its worker drained); the next request is served. The script
# says nothing for 5 s after its first event: output the runner found
# waiting as it ran again would go first to the closed connection, and
# that failed write ends the request as the module's going (2005) with
# the ABORT unread (the worker is drained all the same).
{
    my $rpid = do { open my $pf, '<', "$cfg->{vars}{t_logs}/cgiplus-runner.pid" or die $!; <$pf> =~ /(\d+)/ ? $1 : 0 };
    $from = -s $elog;
    # a client that reads the first event, then resets its connection
    # (SO_LINGER 0): nothing has to be written to it to see it gone
    my $cs = IO::Socket::INET->new(PeerAddr => Apache::TestRequest::hostport(), Timeout => 10) or die "connect: $!";
    print $cs "GET /cgi-relay/sse.pl?2,5000 HTTP/1.1\r\nHost: $host\r\n\r\n";
    my $got = '';
    while ($got !~ /event 1/) { sysread($cs, $got, 4096, length $got) or last }
    kill 'STOP', $rpid;
    my $stopped = 1;
    END { kill 'CONT', $rpid if $stopped && $rpid }
    setsockopt($cs, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0));
    close $cs;
    my $l = '';
    for (1 .. 50) { $l = log_from($elog, $from); last if $l =~ /CGIPLUS1088/; sleep 0.1 }
    kill 'CONT', $rpid;
    $stopped = 0;
    ok t_cmp($l, qr/CGIPLUS1088: sent ABORT for \S+sse\.pl, but the runner did not end the request; closing the connection/,
             'a stopped runner: no END after the ABORT, the connection is closed (1088)');
    for (1 .. 50) { $l = log_from($elog, $from); last if $l =~ /CGIPLUS2506/; sleep 0.1 }
    ok t_cmp($l, qr{CGIPLUS2004: request \d+ \(/cgi-relay/sse\.pl\?2,5000\) for \S+ ended: aborted\n(?s:.*)CGIPLUS2506: request \d+ \(/cgi-relay/sse\.pl\?2,5000\) lost its client; worker pid \d+ of \S+sse\.pl runs to its sentinel},
             'the runner, running again, reads the ABORT: the request ends aborted, its worker is drained (2004, 2506)');
    $r = $ua->get("$h1/cgi-relay/sse.pl?1");
    ok t_cmp($r->code . ' ' . $r->content, "200 data: event 1\n\n", 'and serves the next request');
}

# What a log file got since offset $off.
sub log_from { my ($f, $off) = @_; open my $fh, '<', $f or return ''; seek $fh, $off, 0;
               local $/; return <$fh> // '' }
# Waits, 10 s at most, until the log has n stderr lines matching re since
# off (they reach it asynchronously); returns its text since off.
sub stderr_lines {
    my ($f, $off, $re, $n) = @_;
    my $t = '';
    for (1 .. 200) {
        $t = log_from($f, $off);
        last if (() = $t =~ /$re/mg) >= $n;
        sleep 0.05;
    }
    return $t;
}

# stderr of a request to a virtual host goes to that host's error log.
my $vhf = "$cfg->{vars}{t_logs}/vhlog_error_log";
my ($vhoff, $moff) = (-s $vhf // 0, -s $elog);
$r = $ua->get("$vhlog/cgi-plus/stderr-lines.pl?q,3");
ok t_cmp($r->content, "wrote 3 lines of q\n", 'vhost request served');
my $vh = stderr_lines($vhf, $vhoff, qr/q{1000}$/, 3);
my $main = log_from($elog, $moff);
my @vl = $vh =~ /CGIPLUS1050: stderr from \S+stderr-lines\.pl \(pid \d+\): (q{1000})$/mg;
ok t_cmp(scalar @vl, 3, "the virtual host's error log has the 3 lines, whole");
ok t_cmp(scalar(() = $main =~ /q{1000}/g), 0, 'the main error log has none of them');

# Concurrent scripts writing 1000-byte stderr lines in 250-byte pieces:
# every log line is one whole line of one script.
$moff = -s $elog;
my @kids;
for my $c ('a' .. 'd') {
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        my $m = $c lt 'c' ? 'cgi-plus' : 'cgi-plain';
        LWP::UserAgent->new(timeout => 20)->get("$h1/$m/stderr-lines.pl?$c,50");
        exit 0;
    }
    push @kids, $pid;
}
waitpid $_, 0 for @kids;
$log = stderr_lines($elog, $moff, qr/CGIPLUS1050: stderr from \S+stderr-lines\.pl/, 200);
my @lines = $log =~ /CGIPLUS1050: stderr from \S+stderr-lines\.pl \(pid \d+\): (.*)$/mg;
my %count;
my $bad = 0;
for (@lines) {
    if (/^([a-d])\1{999}$/) { $count{$1}++ } else { $bad++ }
}
ok t_cmp(scalar @lines, 200, '200 stderr lines logged');
ok t_cmp($bad, 0, 'none mixed or cut');
ok t_cmp(join(',', map { $count{$_} // 0 } 'a' .. 'd'), '50,50,50,50', '50 lines of each script');
