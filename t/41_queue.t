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

plan tests => 16;

# --- a full queue: 1 worker busy, 2 waiting; the 4th is refused at once.
my @h;
for (1 .. 3) {
    push @h, hstart('/pool/queue/app.pl?sleep=0.6');
    sleep 0.1;
}
my $r = hget('/pool/queue/app.pl');
ok t_cmp($r->{code}, 503, 'the request past the queue depth gets 503');
ok t_cmp($r->{secs} < 0.1 ? 1 : 0, 1, sprintf('within 100 ms (%.1f ms)', $r->{secs} * 1000));
ok t_cmp($r->{headers}{'retry-after'} // '', qr/^\d+$/, 'with Retry-After');
my @codes = map { hfinish($_)->{code} } @h;
ok t_cmp("@codes", '200 200 200', 'the running and queued requests are served');

# --- a request that waits past CGIplusQueueWait (500 ms) gets 503 then.
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

# --- arrival order: the worker's own request counter follows the order sent.
my $first = hget('/pool/fifo/app.pl');
my ($base) = $first->{body} =~ /n=(\d+)/;
@h = ();
for (1 .. 5) {
    push @h, hstart('/pool/fifo/app.pl?sleep=0.15');
    sleep 0.06;
}
# meanwhile another pool answers at once: a busy pool never delays another
my $other = hget('/pool/other/app.pl');
ok t_cmp($other->{code}, 200, 'another pool answers while this one is busy');
ok t_cmp($other->{secs} < 0.5 ? 1 : 0, 1, sprintf('without waiting (%.2f s)', $other->{secs}));
my @n = map { (hfinish($_)->{body} =~ /n=(\d+)/)[0] // -1 } @h;
ok t_cmp("@n", join(' ', map { $base + $_ } 1 .. 5), 'requests were served in arrival order');
$p = pool_of(status(), 'fifo');
ok t_cmp($p->{queue}{max} >= 3 ? 1 : 0, 1, "they did queue (at most $p->{queue}{max} waiting)");

# --- a queued request whose client leaves is dropped from the queue.
my $script = Apache::Test::vars('documentroot') . '/pool/app.pl';
my @begin = (script => $script, mode => 'cgiplus', uri => '/wire', env => 'POOL=wireq',
             max_workers => 1, queue_depth => 5);
my $c1 = wire_connect();
wire_request($c1, 1, \@begin, [QUERY_STRING => 'sleep=1', CONTENT_LENGTH => 0,
                                REQUEST_METHOD => 'GET']);
sleep 0.2;
my $c2 = wire_connect();
wire_request($c2, 2, \@begin, [QUERY_STRING => '', CONTENT_LENGTH => 0,
                                REQUEST_METHOD => 'GET']);
ok t_cmp(wait_for(sub { my $p = pool_of(status(), 'wireq'); $p && $p->{queue}{depth} == 1 }, 1)
         ? 1 : 0, 1, 'the second request is queued');
close $c2;
my $t0 = time;
my $gone = wait_for(sub { pool_of(status(), 'wireq')->{queue}{depth} == 0 }, 1, 0.02);
ok t_cmp($gone && time - $t0 < 0.5 ? 1 : 0, 1, 'it leaves the queue as soon as its client goes');
my @f = wire_frames($c1, 100, 3);
ok t_cmp(@f ? $f[-1]{outcome} // -1 : -1, 0, 'the running request still ends ok');
$p = pool_of(status(), 'wireq');
ok t_cmp($p->{counters}{errors}{aborted}, 1, 'the left request is counted as aborted');
