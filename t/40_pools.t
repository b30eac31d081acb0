# Pool settings, each against the real httpd and runner: warm idle workers
# (CGIplusMinIdle), requests per worker (CGIplusMaxRequests), worker age
# (CGIplusMaxAge), idle lifetime (CGIplusIdleTimeout, the LIFETIME callout,
# Script-Control X-lifetime), spawn rate (CGIplusSpawnRate), which
# replacements for the pool's own recycling do not wait for; every end is
# recorded with its reason.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget hstart hfinish hmany status pool_of wait_for);

plan tests => 30;

sub pid_of { my ($r) = @_; return ($r->{body} =~ /pid=(\d+)/)[0] // 0 }
sub workers { my ($tag, $state) = @_; my $p = pool_of(status(), $tag) or return -1;
    return scalar grep { !$state || $_->{state} eq $state } @{ $p->{workers} } }

# --- min idle: two idle workers are kept warm, even while one is busy.
my $r = hget('/pool/settings/app.pl');
ok t_cmp($r->{code}, 200, 'settings pool answers');
ok t_cmp(wait_for(sub { workers('settings', 'idle') >= 2 }, 3) ? 1 : 0, 1,
         'at least two idle workers kept warm (CGIplusMinIdle 2)');
# (the busy request holds its worker until the test creates $release)
my $release = Apache::Test::vars('t_logs') . "/pools-release-$$";
unlink $release;
my $h = hstart("/pool/settings/app.pl?hold=$release");
my $three = wait_for(sub { workers('settings') == 3 && workers('settings', 'idle') == 2 }, 10);
ok t_cmp($three ? 1 : 0, 1, 'a busy worker is replaced in the warm set (3 workers, 2 idle)');
open my $rel, '>', $release or die "$release: $!";
close $rel;
ok t_cmp(hfinish($h)->{code}, 200, 'the busy request completes');
unlink $release;

# --- max requests: a worker serves three requests, then is replaced.
my @pids = map { pid_of(hget('/pool/maxreq/app.pl')) } 1 .. 7;
ok t_cmp("$pids[0]$pids[1]$pids[2]" eq $pids[0] x 3 ? 1 : 0, 1, 'first worker serves 3');
ok t_cmp($pids[3] != $pids[0] && $pids[3] == $pids[4] && $pids[4] == $pids[5] ? 1 : 0, 1,
         'then a second worker serves 3');
ok t_cmp($pids[6] != $pids[3] ? 1 : 0, 1, 'and a third takes the 7th');
my $p = wait_for(sub { my $p = pool_of(status(), 'maxreq');
                       $p && $p->{counters}{deaths}{max_requests} >= 2 ? $p : undef }, 3);
ok t_cmp($p ? $p->{counters}{deaths}{max_requests} : 0, 2, 'two ends recorded as max_requests');

# --- max age: a worker older than 1 s is replaced (when idle).
my $a = pid_of(hget('/pool/maxage/app.pl'));
sleep 1.3;
my $b = pid_of(hget('/pool/maxage/app.pl'));
ok t_cmp($a != $b && $b ? 1 : 0, 1, 'a worker past CGIplusMaxAge is replaced');
$p = pool_of(status(), 'maxage');
ok t_cmp($p->{counters}{deaths}{lifetime} >= 1 ? 1 : 0, 1, 'recorded as lifetime');
my ($end) = grep { $_->{pid} == $a } @{ $p->{ended} };
ok t_cmp($end ? $end->{reason} : '', 'lifetime', 'the ended list names the old pid and why');

# --- idle timeout: an idle worker stops after 1.5 s.
$a = pid_of(hget('/pool/idle/app.pl'));
ok t_cmp(wait_for(sub { workers('idle') == 0 }, 5) ? 1 : 0, 1,
         'the idle worker stopped (CGIplusIdleTimeout 1.5)');
$p = pool_of(status(), 'idle');
ok t_cmp($p->{counters}{deaths}{idle}, 1, 'recorded as idle');

# The LIFETIME callout: "none" keeps this worker past the pool's idle timeout.
$r = hget('/pool/idle/app.pl?callout=LIFETIME:%20none');
ok t_cmp($r->{body}, qr/answer=200 lifetime none/, 'LIFETIME callout answered');
$a = pid_of($r);
sleep 2;
ok t_cmp(pid_of(hget('/pool/idle/app.pl')), $a, 'LIFETIME none: the worker outlived 1.5 s idle');
# ... and a short one (0.01 minutes = 600 ms) ends it sooner.
$r = hget('/pool/idle/app.pl?callout=LIFETIME:%200.005');
ok t_cmp($r->{body}, qr/answer=200 lifetime 300 ms/, 'a fractional LIFETIME');
my $t0 = time;
wait_for(sub { workers('idle') == 0 }, 3);
ok t_cmp(time - $t0 < 1.2 ? 1 : 0, 1, 'the worker went after its own 300 ms lifetime, before the pool\'s 1.5 s');

# Script-Control X-lifetime=none works like the callout.
$a = pid_of(hget('/pool/idle/app.pl?sc=X-lifetime%3Dnone'));
sleep 2;
ok t_cmp(pid_of(hget('/pool/idle/app.pl')), $a, 'Script-Control X-lifetime=none keeps it');

# The pool's idle timeout trims the workers above CGIplusMinIdle only.
hmany(map { '/pool/idlemin/app.pl?sleep=0.3' } 1 .. 3);
ok t_cmp(wait_for(sub { workers('idlemin') == 1 }, 3) ? 1 : 0, 1,
         'idle workers above min_idle stop; the warm one stays');
sleep 1;
$p = pool_of(status(), 'idlemin');
ok t_cmp(scalar(@{ $p->{workers} }) . ' ' . $p->{counters}{deaths}{idle}, '1 2',
         'one worker left after 1 s more; two ended as idle');

# --- spawn rate: 6 warm workers wanted at 2 starts per second.
$t0 = time;
hget('/pool/rate/app.pl');
my $early = workers('rate');
ok t_cmp($early <= 3 ? 1 : 0, 1, "at most 3 workers right away ($early)");
my $six = wait_for(sub { workers('rate') == 6 }, 10, 0.1);
my $took = time - $t0;
ok t_cmp($six ? 1 : 0, 1, 'six workers in the end');
ok t_cmp($took >= 1.4 ? 1 : 0, 1, sprintf('starting them took %.1f s (>= 1.5 s at 2/s)', $took));
$p = pool_of(status(), 'rate');
ok t_cmp($p->{counters}{spawns}, 6, 'six spawns counted');

# --- recycling is not growth: 4 warm workers that each serve one request
# (CGIplusMaxRequests 1) at a spawn rate of 1 a second. Six rounds of 4
# requests at once: each round ends all 4 workers, and their replacements
# start at once, not one a second (the fourth of a round would wait past
# CGIplusQueueWait 3s: 503).
hget('/pool/renew/app.pl');
ok t_cmp(wait_for(sub { workers('renew', 'idle') == 4 }, 15, 0.1) ? 1 : 0, 1,
         'four warm workers at 1 start a second');
my @got = map { hmany(('/pool/renew/app.pl') x 4) } 1 .. 6;
my %rpids = map { (pid_of($_) => 1) } @got;
ok t_cmp(join(' ', scalar(grep { $_->{code} == 200 } @got), scalar(keys %rpids)), '24 24',
         'six rounds of 4 at once: 24 answers 200, each from a worker of its own');
$p = wait_for(sub { my $p = pool_of(status(), 'renew');
                    $p && $p->{counters}{deaths}{max_requests} >= 24 ? $p : undef }, 5);
ok t_cmp($p ? $p->{counters}{deaths}{max_requests} : 0, qr/^2[4-9]$/, 'each ended as max_requests');

# --- nor is a worker's own clean exit after serving (a script that ends
# itself after a request, as WASD's scripts may; php-cgi at its
# PHP_FCGI_MAX_REQUESTS): the same rounds, each worker exiting 0 after its
# request.
hget('/pool/selfend/app.pl');
ok t_cmp(wait_for(sub { workers('selfend', 'idle') == 4 }, 15, 0.1) ? 1 : 0, 1,
         'four warm workers at 1 start a second');
@got = map { hmany(('/pool/selfend/app.pl?quit') x 4) } 1 .. 6;
%rpids = map { (pid_of($_) => 1) } @got;
ok t_cmp(join(' ', scalar(grep { $_->{code} == 200 } @got), scalar(keys %rpids)), '24 24',
         'six rounds of 4 at once, each worker exiting after its request: 24 answers 200, '
         . 'each from a worker of its own');
$p = wait_for(sub { my $p = pool_of(status(), 'selfend');
                    $p && $p->{counters}{deaths}{exited} >= 24 ? $p : undef }, 5);
ok t_cmp($p ? $p->{counters}{deaths}{exited} : 0, qr/^2[4-9]$/, 'each ended as exited');
