# Queueing and back-pressure: a full queue answers 503 + Retry-After at once
# (within 100 ms), a request that waited too long gets 503, requests are
# served in arrival order, a busy pool does not delay another, and a request
# whose client went away leaves the queue.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget hstart hfinish hfinish_all status pool_of wait_for wire_connect wire_request
                wire_frames);
use IO::Socket::INET;
use POSIX ();
use Socket qw(SOL_SOCKET SO_LINGER);

plan tests => 26;

# The busy requests below hold their worker (app.pl's hold=FILE) until the
# test creates $release: the test, not a sleep, decides when they end.
my $release = Apache::Test::vars('t_logs') . "/queue-release-$$";
sub release { open my $fh, '>', $release or die "$release: $!"; close $fh }
sub depth { my $p = pool_of(status(), $_[0]); return $p ? $p->{queue}{depth} : -1 }
sub busy { my $p = pool_of(status(), $_[0]) or return 0;
           return scalar grep { $_->{state} eq 'busy' } @{ $p->{workers} } }

# --- a full queue: 1 worker busy, 2 waiting; the 4th is refused at once.
unlink $release;
my @h = (hstart("/pool/queue/app.pl?hold=$release"));
wait_for(sub { busy('queue') == 1 }, 10);
for my $k (1 .. 2) {
    push @h, hstart('/pool/queue/app.pl');
    wait_for(sub { depth('queue') == $k }, 10);
}
my $r = hget('/pool/queue/app.pl');
ok t_cmp($r->{code}, 503, 'the request past the queue depth gets 503');
ok t_cmp($r->{secs} < 0.1 ? 1 : 0, 1, sprintf('within 100 ms (%.1f ms)', $r->{secs} * 1000));
ok t_cmp($r->{headers}{'retry-after'} // '', qr/^\d+$/, 'with Retry-After');
release();
my @codes = map { hfinish($_)->{code} } @h;
ok t_cmp("@codes", '200 200 200', 'the running and queued requests are served');

# --- a request that waits past CGIplusQueueWait (500 ms) gets 503 then.
# A child that knows the pool queues it in the table (1732), one that does
# not yet relays it to the runner's queue (1061, saying it waited).
my $errlog = Apache::Test::vars('t_logs') . '/error_log';
sub log_text { open my $fh, '<', $errlog or return ''; local $/; return <$fh> }
hget('/pool/qwait/app.pl');
my $log0 = length log_text();
@h = (hstart('/pool/qwait/app.pl?sleep=1.5'));
sleep 0.1;
push @h, hstart('/pool/qwait/app.pl'), hstart('/pool/qwait/app.pl');
my @res = hfinish_all(@h);
ok t_cmp($res[0]{code}, 200, 'the running request completes');
ok t_cmp("$res[1]{code} $res[2]{code}", '503 503', 'the waiting ones get 503');
ok t_cmp($res[1]{secs} > 0.4 && $res[1]{secs} < 1.0 ? 1 : 0, 1,
         sprintf('after the queue wait (%.2f s)', $res[1]{secs}));
my $p = pool_of(status(), 'qwait');
ok t_cmp($p->{counters}{errors}{overloaded}, 2, 'counted as overloaded');
my @waited = substr(log_text(), $log0) =~
    /CGIPLUS(1732: \S+\/app\.pl: waited \d+ ms for a worker \(CGIplusQueueWait\); answering 503|1061: \S+\/app\.pl: it waited CGIplusQueueWait in the runner's queue and no worker came free; answering 503)/g;
ok t_cmp(scalar(@waited), 2, 'httpd logs that both waited too long (1732 or 1061): ' .
         join(', ', map { /^(\d+)/ } @waited));

# --- arrival order: the worker's own request counter follows the order
# sent: one request holds the only worker, four queue one after the other.
my $first = hget('/pool/fifo/app.pl');
my ($base) = $first->{body} =~ /n=(\d+)/;
hget('/pool/other/app.pl'); # its worker is up (its start is not the point below)
unlink $release;
@h = (hstart("/pool/fifo/app.pl?hold=$release"));
wait_for(sub { busy('fifo') == 1 }, 10);
for my $k (1 .. 4) {
    push @h, hstart('/pool/fifo/app.pl');
    wait_for(sub { depth('fifo') == $k }, 10);
}
# meanwhile another pool answers at once: a busy pool never delays another
my $other = hget('/pool/other/app.pl');
release();
ok t_cmp($other->{code}, 200, 'another pool answers while this one is busy');
ok t_cmp($other->{secs} < 0.5 ? 1 : 0, 1, sprintf('without waiting (%.2f s)', $other->{secs}));
my @n = map { (hfinish($_)->{body} =~ /n=(\d+)/)[0] // -1 } @h;
ok t_cmp("@n", join(' ', map { $base + $_ } 1 .. 5), 'requests were served in arrival order');
$p = pool_of(status(), 'fifo');
ok t_cmp($p->{queue}{max}, 4, 'they did queue (four waiting at most)');

# --- a queued request whose client leaves is dropped from the queue.
my $script = Apache::Test::vars('documentroot') . '/pool/app.pl';
my @begin = (script => $script, mode => 'cgiplus', uri => '/wire', env => 'POOL_wireq=wireq',
             max_workers => 1, queue_depth => 5, queue_wait => '1s');
unlink $release;
my $c1 = wire_connect();
wire_request($c1, 1, \@begin, [QUERY_STRING => "hold=$release", CONTENT_LENGTH => 0,
                                REQUEST_METHOD => 'GET']);
wait_for(sub { busy('wireq') == 1 }, 10);
my $c2 = wire_connect();
wire_request($c2, 2, \@begin, [QUERY_STRING => '', CONTENT_LENGTH => 0,
                                REQUEST_METHOD => 'GET']);
ok t_cmp(wait_for(sub { depth('wireq') == 1 }, 10) ? 1 : 0, 1, 'the second request is queued');
close $c2;
my $t0 = time;
my $gone = wait_for(sub { depth('wireq') == 0 }, 5, 0.02);
ok t_cmp($gone && time - $t0 < 0.5 ? 1 : 0, 1,
         sprintf('it leaves the queue as soon as its client goes (%.2f s)', time - $t0));
# One that stays past queue_wait: overloaded, and END's detail says why
# (ETIMEDOUT, docs/PROTOCOL.md), for httpd's 1061.
my $c3 = wire_connect();
wire_request($c3, 3, \@begin, [QUERY_STRING => '', CONTENT_LENGTH => 0, REQUEST_METHOD => 'GET']);
my @f3 = wire_frames($c3, 100, 5);
ok t_cmp(@f3 ? ($f3[-1]{outcome} // -1) . ' ' . ($f3[-1]{detail} // -1) : '', '1 ' . POSIX::ETIMEDOUT(),
         'a request queued past queue_wait ends overloaded, detail ETIMEDOUT');
close $c3;
release();
my @f = wire_frames($c1, 100, 10);
ok t_cmp(@f ? $f[-1]{outcome} // -1 : -1, 0, 'the running request still ends ok');
$p = pool_of(status(), 'wireq');
ok t_cmp($p->{counters}{errors}{aborted}, 1, 'the left request is counted as aborted');

# --- the same over real HTTP: a client that leaves while its request waits
# in the queue makes httpd send ABORT; the request leaves the queue at once
# and never runs. The pool has 1 worker, busy with a slow request.
sub raw_get {
    my ($path, $close) = @_;
    return "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\n" . ($close ? "Connection: close\r\n" : '')
        . "\r\n";
}
($base) = hget('/pool/fifo/app.pl')->{body} =~ /n=(\d+)/;
$log0 = length log_text();
my $aborted0 = pool_of(status(), 'fifo')->{counters}{errors}{aborted} // 0;
unlink $release;
my $slow = hstart("/pool/fifo/app.pl?hold=$release");
wait_for(sub { busy('fifo') == 1 }, 10);
my $raw = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => Apache::Test::vars('port'),
                                Proto => 'tcp') or die "connect: $!";
$raw->autoflush(1);
print $raw raw_get('/pool/fifo/app.pl?abandoned=1');
ok t_cmp(wait_for(sub { depth('fifo') == 1 }, 10) ? 1 : 0, 1, 'the raw client\'s request is queued');
# A reset, not a plain close: an end of file is also what a half-closed
# client that waits for its answer sends (t/3d_cgi_halfclose.t).
setsockopt($raw, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0)) or die "SO_LINGER: $!";
close $raw;
$t0 = time;
# It must leave while the held request still holds the only worker: a
# request served later would leave the queue only by being dispatched.
$gone = wait_for(sub { depth('fifo') == 0 }, 5, 0.02);
my $busy = pool_of(status(), 'fifo');
my ($w1) = grep { $_->{state} eq 'busy' } @{ $busy->{workers} };
ok t_cmp($gone ? 1 : 0, 1,
         sprintf('it leaves the queue when the client resets its connection (%.2f s)', time - $t0));
ok t_cmp($w1 ? $w1->{uri} : '', qr/hold=/, 'while the slow request still runs');
release();
my $sr = hfinish($slow);
ok t_cmp($sr->{body} =~ /n=(\d+)/ ? $1 : -1, $base + 1, 'the slow request is served');
my $next = hget('/pool/fifo/app.pl');
ok t_cmp($next->{body} =~ /n=(\d+)/ ? $1 : -1, $base + 2,
         'the next request is the worker\'s next: the abandoned one never ran');
ok t_cmp((pool_of(status(), 'fifo')->{counters}{errors}{aborted} // 0) - $aborted0, 1,
         'counted as aborted');
# Queued in the runner (relayed) httpd sends ABORT (1077); waiting in the
# table's queue (the direct path) it leaves it itself (1730).
ok t_cmp(substr(log_text(), $log0) =~ /CGIPLUS1077: client connection reset before the response of \S+app\.pl began \(no worker yet\); sending ABORT|CGIPLUS1730: client connection reset while the request for \S+app\.pl waited for a worker \(\d+ ms\); it leaves the queue and never runs/
         ? 1 : 0, 1, 'httpd logs why the request left the queue (1077 or 1730)');

# A client that sends more (a pipelined request) while its first waits is
# still there: both are served, in order.
$slow = hstart('/pool/fifo/app.pl?sleep=0.8');
sleep 0.2;
$raw = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => Apache::Test::vars('port'),
                             Proto => 'tcp') or die "connect: $!";
$raw->autoflush(1);
print $raw raw_get('/pool/fifo/app.pl?pipe=1');
wait_for(sub { depth('fifo') == 1 }, 1);
print $raw raw_get('/pool/fifo/app.pl?pipe=2', 1);
my $h = { sock => $raw, t0 => time, buf => '' };
hfinish($h, 10);
hfinish($slow);
my @uris = $h->{buf} =~ m{uri=\S*(pipe=\d)}g;
ok t_cmp("@uris", 'pipe=1 pipe=2', 'both pipelined requests are served');
unlink $release;
