# Every field of a pool's status is right whichever path served its
# requests (issue 25, point 3): the same known sequence of requests on the
# direct path (/pool/fields/), relayed (/pool/fields_relay/, CGIplusDirect
# off) and for a plain CGI pool (/pool/fields_cgi/), three workers at most
# each, then every field compared with what the sequence makes it: max
# active, requests, served, slow, unused (the pool hit every 2 s), the
# workers' idle time and request counts, queue, errors.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget hstart hfinish_all status pool_of wait_for);

my @pools = qw(fields fields_relay fields_cgi);
plan tests => 3 * 12 + 2 + 5;

sub pid_of { my ($r) = @_; return ($r->{body} =~ /pid=(\d+)/)[0] // 0 }
# n requests at once to each pool; returns { pool => [responses] }. First
# the plain CGI runs of the burst before are reaped (until then they count
# against the pool's three processes) and every worker is idle again.
# With $held, the requests wait (app.pl's hold=FILE) until every pool shows
# n of them busy at once (at most 20 s), then end: the test, not a sleep,
# decides how long they overlap.
my $release = Apache::Test::config()->{vars}{t_logs} . "/fields-release-$$";
sub busy_in { my ($st, $p) = @_; my $q = pool_of($st, $p) or return 0;
              return scalar grep { $_->{state} eq 'busy' } @{ $q->{workers} } }
sub burst {
    my ($n, $query, $held) = @_;
    # A worker is handed back just after its client has the whole response:
    # until then a request of this burst would wait for it (queue max 1).
    wait_for(sub { my $st = status(); my $p = pool_of($st, 'fields_cgi');
                   (!$p || !@{ $p->{workers} }) && !grep { busy_in($st, $_) } @pools }, 5, 0.02);
    unlink $release;
    $query = "hold=$release" if $held;
    my @h = map { my $p = $_; map { hstart("/pool/$p/app.pl?$query&i=$_") } 1 .. $n } @pools;
    if ($held) {
        wait_for(sub { my $st = status(); !grep { busy_in($st, $_) < $n } @pools }, 20, 0.05);
        open my $fh, '>', $release or die "$release: $!";
        close $fh;
    }
    my @r = hfinish_all(@h);
    unlink $release;
    return { map { $pools[$_] => [@r[$_ * $n .. $_ * $n + $n - 1]] } 0 .. $#pools };
}
sub codes { my ($r) = @_; return join ' ', map { $_->{code} } @$r }
my %served;

# Two at once: two workers busy (each new worker's first request is relayed).
my $b = burst(2, '', 1);
my $st = status();
for my $p (@pools) {
    ok t_cmp(codes($b->{$p}), '200 200', "$p: two at once");
    my $q = pool_of($st, $p);
    # (what a failure needs to be read: the runner's worker count, spawns)
    ok t_cmp($q->{counters}{max_active}, 2, "$p: max active 2 (runner: $st->{runner}{workers} of "
             . "$st->{runner}{max_workers_total} workers; pool: $q->{counters}{spawns} spawns, "
             . "max_reached $q->{counters}{max_reached})");
}
# Two at once again: on the direct path both go to the idle workers
# directly; still two at most.
$b = burst(2, '', 1);
$st = status();
for my $p (@pools) {
    ok t_cmp(pool_of($st, $p)->{counters}{max_active}, 2, "$p: max active still 2 after two more at once");
}
# Three at once: the third needs a new worker.
$b = burst(3, '', 1);
$st = status();
for my $p (@pools) {
    ok t_cmp(codes($b->{$p}), '200 200 200', "$p: three at once");
    ok t_cmp(pool_of($st, $p)->{counters}{max_active}, 3, "$p: max active 3");
}
# One every 2 s, three times: right after each, the pool was used just
# now, and the worker that served it has just become idle: both times are
# within what the requests and the status page took (measured), and well
# under the 2 s since the pool's use before.
my (@unused, @idle, @spent);
for my $k (1 .. 3) {
    sleep 2;
    my $t0 = time;
    my @r = map { hget("/pool/$_/app.pl?tick=$k") } @pools;
    $st = status();
    push @spent, int((time - $t0) * 1000) + 20; # (the status page's ms are whole)
    for my $i (0 .. $#pools) {
        my $p = pool_of($st, $pools[$i]);
        push @{ $unused[$i] }, $p->{unused_ms};
        my ($w) = grep { $_->{pid} == pid_of($r[$i]) } @{ $p->{workers} };
        push @{ $idle[$i] }, $w ? $w->{idle_ms} // 'busy' : 'gone';
    }
}
sub recent { my ($ms) = @_; return (grep { $ms->[$_] =~ /^\d+$/ && $ms->[$_] <= $spent[$_] && $ms->[$_] < 2000 } 0 .. 2) == 3 }
for my $i (0 .. $#pools) {
    ok t_cmp(recent($unused[$i]) ? 1 : "@{ $unused[$i] }", 1,
             "$pools[$i]: unused right after each request (@{ $unused[$i] } ms; the requests took @spent)");
}
for my $i (0 .. 1) { # a plain CGI run leaves no worker behind
    ok t_cmp(recent($idle[$i]) ? 1 : "@{ $idle[$i] }", 1,
             "$pools[$i]: the worker that served it just became idle (@{ $idle[$i] } ms; the requests took @spent)");
}
# A request longer than slow_request (5 s) on each pool.
$b = burst(1, 'sleep=5.2');
$st = status();
for my $p (@pools) {
    my $q = pool_of($st, $p);
    my $c = $q->{counters};
    ok t_cmp($c->{slow}, 1, "$p: slow 1 (the one over 5 s)");
    ok t_cmp("$c->{requests} $c->{served}", '11 11', "$p: 11 requests, 11 served");
    ok t_cmp(join(' ', grep { $c->{errors}{$_} } sort keys %{ $c->{errors} }), '', "$p: no error");
    ok t_cmp("$q->{queue}{depth} $q->{queue}{max}", '0 0', "$p: nothing queued (three workers for three at once)");
    my @w = @{ $q->{workers} };
    my $sum = 0;
    $sum += $_->{requests} for @w;
    ok t_cmp($p eq 'fields_cgi' ? scalar(@w) : $sum, $p eq 'fields_cgi' ? 0 : 11,
             $p eq 'fields_cgi' ? "$p: no worker left (a process per request)"
                                : "$p: its three workers served the 11 between them");
    ok t_cmp(scalar(grep { $_->{state} eq 'busy' } @w), 0, "$p: none busy now");
    my $html = hget("/cgiplus-status?pool=$q->{id}")->{body};
    ok t_cmp($html, qr{<td>\d+</td><td>\d+</td><td>\d+</td><td>3</td><td>3</td><td>0</td><td>0</td><td>0</td><td>11</td><td>11</td><td>0</td><td>1</td>},
             "$p: the HTML row (max 3, max active 3, never at the limit, queue 0/0, 11 accepted and served, no error, 1 slow)");
}
# The metrics take the largest max active of the script's pools, and add
# their slow requests up.
my @app = grep { $_->{script} eq pool_of($st, 'fields')->{script} && $_->{mode} eq 'cgiplus' } @{ $st->{pools} };
my ($max, $slow) = (0, 0);
for (@app) { $max = $_->{counters}{max_active} if $_->{counters}{max_active} > $max; $slow += $_->{counters}{slow} }
my $m = hget('/cgiplus-status?metrics')->{body};
ok t_cmp($m, qr/^cgiplus_pool_workers_active_max\{script="[^"]+\/pool\/app\.pl",mode="cgiplus"\} $max$/m,
         "metrics: active_max of app.pl's persistent pools ($max)");
ok t_cmp($m, qr/^cgiplus_pool_slow_requests_total\{script="[^"]+\/pool\/app\.pl",mode="cgiplus"\} $slow$/m,
         "metrics: slow requests of app.pl's persistent pools ($slow)");
