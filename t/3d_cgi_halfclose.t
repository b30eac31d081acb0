# Half-closed clients (issue 12): a client that sends its request and then
# shuts down its sending side (shutdown(SHUT_WR), as nc -N and some probes
# do) gets its whole response, as under mod_cgid: HTTP/1.0 and 1.1, GET and
# POST, keep-alive or not, plain CGI and persistent, native and
# CGIplusCompat scopes, each compared with mod_cgid on the same script.
# A client that is really gone still loses its request: one that resets
# its connection while the request is queued is dropped (it never runs,
# CGIPLUS1730 or 1077); one that closed is found out by the first failed write
# (CGIPLUS1070), and its worker finishes its response unseen and serves
# again (issue 11: a client that leaves costs no worker), on the direct
# path and relayed. The status page counts each request once: the reset
# and the closed one as aborted, never also as served.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use Apache::TestRequest ();
use IO::Socket::INET;
use Socket qw(SOL_SOCKET SO_LINGER);
use Time::HiRes qw(sleep time);
use lib 't/lib';
use RawHTTP qw(raw_request);
use lib 't/htdocs/pool/lib';
use PoolTest qw(status pool_of);

my @prefixes = qw(/hc-plain /hc-plus /hc-compat /hc-compat-plus);
my @ways = (
    [ 'HTTP/1.0', 0 ], [ 'HTTP/1.1', 0 ], [ 'HTTP/1.1', 1 ],
);
my @methods = ([ GET => undef ], [ POST => 'half-closed body' ]);

plan tests => @ways * @methods * (2 + 2 * @prefixes) + 2 * 6 + 2 * 5;

my $hp = Apache::TestRequest::hostport();
my $vars = Apache::Test::vars();
my $errlog = "$vars->{t_logs}/error_log";
sub log_size { return -s $errlog || 0 }
sub log_from {
    my ($off) = @_;
    open my $fh, '<', $errlog or return '';
    seek $fh, $off, 0;
    local $/;
    return <$fh> // '';
}

for my $way (@ways) {
    my ($proto, $ka) = @$way;
    for my $m (@methods) {
        my ($method, $body) = @$m;
        my $what = "$proto $method" . ($ka ? ' keep-alive' : '');
        my $q = "a=1&b=two%20words";
        my %opt = (proto => $proto, keepalive => $ka, half_close => 1);
        my $want = raw_request($hp, $method, "/hc-cgid/hc.pl?$q", [], $body, \%opt);
        my $len = length($body // '');
        ok t_cmp($want->{code}, 200, "mod_cgid, $what, half-closed: 200");
        ok t_cmp($want->{body}, "method=$method query=$q len=$len body=" . ($body // '') . "\n",
                 "mod_cgid, $what, half-closed: the whole body");
        for my $p (@prefixes) {
            my $got = raw_request($hp, $method, "$p/hc.pl?$q", [], $body, \%opt);
            ok t_cmp($got->{status_line}, $want->{status_line},
                     "$p, $what, half-closed: status line as mod_cgid");
            ok t_cmp($got->{body}, $want->{body}, "$p, $what, half-closed: body as mod_cgid");
        }
    }
}

# --- Really gone. /hc-queue/ has one worker: a slow request holds it.
my $ledger = "$vars->{t_logs}/halfclose_ledger.txt";
open my $lf, '>', $ledger or die "$ledger: $!";
close $lf;
chmod 0666, $ledger;
sub ledger { open my $fh, '<', $ledger or return ''; local $/; return <$fh> // '' }
sub send_req {
    my ($path) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => $hp, Proto => 'tcp') or die "connect: $!";
    $s->autoflush(1);
    print $s "GET $path HTTP/1.1\r\nHost: $hp\r\nConnection: close\r\n\r\n";
    return $s;
}
sub read_all {
    my ($s) = @_;
    my $data = '';
    local $SIG{ALRM} = sub { die "timeout\n" };
    alarm 20;
    eval { while (sysread($s, my $buf, 65536)) { $data .= $buf } };
    alarm 0;
    return $data;
}
# The body of a raw response, de-chunked if it is chunked.
sub body_of {
    my ($head, $rest) = split /\r\n\r\n/, $_[0], 2;
    return $rest // '' unless $head =~ /^Transfer-Encoding: chunked\r?$/mi;
    my $out = '';
    while ($rest =~ s/^([0-9a-fA-F]+)\r\n//) {
        last if hex($1) == 0;
        $out .= substr($rest, 0, hex($1), '');
        $rest =~ s/^\r\n//;
    }
    return $out;
}
sub wait_until {
    my ($cond, $secs) = @_;
    my $end = time + $secs;
    while (time < $end) { return 1 if $cond->(); sleep 0.05 }
    return $cond->() ? 1 : 0;
}

# Waiting in the table's queue (a child that knows the pool), the request
# leaves it itself (1730); queued in the runner (a child that does not yet,
# and always under CGIplusDirect off), httpd sends ABORT (1077).
my $in_runner = qr/CGIPLUS1077: client connection reset before the response of \S+hc\.pl began/;
my @queues = (
    [ '/hc-queue', qr/CGIPLUS1730: client connection reset while the request for \S+hc\.pl waited for a worker|$in_runner/,
      "its queue (1730 or 1077)" ],
    [ '/hc-queue-relay', $in_runner, "the runner's queue (1077)" ],
);
my %tag = ('/hc-queue' => 'hcq', '/hc-queue-relay' => 'hcqr');
# A pool's requests, served, aborted and other errors, as a list.
sub counts {
    my ($p) = @_;
    my $q = pool_of(status(), $tag{$p}) or return (0, 0, 0, 0);
    my $c = $q->{counters};
    my $other = 0;
    $other += $c->{errors}{$_} for grep { $_ ne 'aborted' } keys %{ $c->{errors} };
    return ($c->{requests}, $c->{served}, $c->{errors}{aborted}, $other);
}
sub delta { my ($b, $a) = @_; return join ' ', map { $a->[$_] - $b->[$_] } 0 .. $#$a }
my ($off, $slow);
for my $qu (@queues) {
    my ($p, $logged, $where) = @$qu;
    raw_request($hp, 'GET', "$p/hc.pl?id=warm", [], undef, {}); # its worker is up
    truncate $ledger, 0;
    my @before = counts($p);
    $off = log_size();
    $slow = send_req("$p/hc.pl?sleep=2&ledger=$ledger&id=slow");
    wait_until(sub { ledger() =~ /start slow/ }, 5);
    # queued behind it: one client resets its connection, one half-closes
    my $reset = send_req("$p/hc.pl?ledger=$ledger&id=reset");
    my $half = send_req("$p/hc.pl?ledger=$ledger&id=half");
    shutdown($half, 1);
    sleep 0.3;
    setsockopt($reset, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0)) or die "SO_LINGER: $!";
    close $reset;
    ok t_cmp(wait_until(sub { log_from($off) =~ $logged }, 1.5), 1,
             "$p: a queued request whose client resets its connection leaves $where at once");
    my $sr = read_all($slow);
    my $hr = read_all($half);
    ok t_cmp($sr, qr/method=GET query=sleep=2\S+id=slow/, "$p: the slow request is served");
    ok t_cmp($hr =~ m{^HTTP/1\.1 200 } ? body_of($hr) : $hr, "method=GET query=ledger=$ledger&id=half len=0 body=\n",
             "$p: the queued half-closed client gets its whole response");
    ok t_cmp(ledger() =~ /reset/ ? 'ran' : 'never ran', 'never ran', "$p: the reset one never ran");
    ok t_cmp(join(' ', ledger() =~ /^(\w+ \w+)$/mg), 'start slow done slow start half done half',
             "$p: the ledger: slow, then the half-closed one");
    # (the half-closed one's worker is handed back once it is answered)
    wait_until(sub { (counts($p))[0] - $before[0] >= 3 && (counts($p))[1] - $before[1] >= 2 }, 5);
    ok t_cmp(delta(\@before, [counts($p)]), '3 2 1 0', "$p: 3 requests: 2 served, the reset one aborted");
}

# A client that closes (end of file, as a half-closed one) while queued is
# indistinguishable from a half-closed one: its request runs, and the first
# write of a streaming response ends it (it fails, 1070, or the client's
# kernel answers it with a reset, seen while the next line is awaited,
# 3610); its worker is
# drained to its sentinel, not stopped (it ends within the 5 s a worker
# whose client left has; an endless stream is stopped, t/53_gone_stream).
for my $p (map { $_->[0] } @queues) {
    my $n = $tag{$p};
    my @before = counts($p);
    my $q0 = pool_of(status(), $n);
    my %served0 = map { $_->{pid} => $_->{requests} } @{ $q0 ? $q0->{workers} : [] };
    $off = log_size();
    $slow = send_req("$p/hc.pl?sleep=1&ledger=$ledger&id=slow$n");
    wait_until(sub { ledger() =~ /start slow$n/ }, 5);
    my $gone = send_req("$p/hc.pl?stream=10&ledger=$ledger&id=fin$n");
    sleep 0.3;
    close $gone;
    read_all($slow);
    ok t_cmp(wait_until(sub { ledger() =~ /start fin$n/ }, 3), 1, "$p: it runs when the worker is free");
    ok t_cmp(wait_until(sub { log_from($off) =~ /CGIPLUS(?:1070: client went away during|3610: client reset its connection \(or HTTP\/2 stream\) while) the response of \S+hc\.pl/ }, 3),
             1, "$p: the first write ends it (1070, or the reset it met, 3610)");
    # the 10 lines take 2 s; a stopped worker never writes "done"
    ok t_cmp(wait_until(sub { ledger() =~ /done fin$n/ }, 20) ? 'finished' : 'stopped', 'finished',
             "$p: its worker finished its response unseen (drained, not stopped)");
    # (on the same worker, after it: it has reached its end by then)
    my $after = raw_request($hp, 'GET', "$p/hc.pl?id=after", [], undef, { half_close => 1 });
    ok t_cmp($after->{body}, "method=GET query=id=after len=0 body=\n", "$p: the pool serves the next one");
    wait_until(sub { (counts($p))[0] - $before[0] >= 3 && (counts($p))[1] - $before[1] >= 2 }, 5);
    my $q1 = pool_of(status(), $n);
    my ($w) = grep { exists $served0{$_->{pid}} } @{ $q1 ? $q1->{workers} : [] };
    ok t_cmp(delta(\@before, [counts($p)]) . ' ' . ($w ? $w->{requests} - $served0{$w->{pid}} : 'a new worker'),
             '3 2 1 0 2', "$p: 3 requests: 2 served, the closed one aborted only; its worker's count 2");
}
