# The status handler (SetHandler cgiplus-status): its JSON matches what this
# test did to one pool; the HTML and Prometheus views show the same numbers.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget hstart hfinish_all status pool_of wait_for runner_pid);

plan tests => 22;

sub pid_of { my ($r) = @_; return ($r->{body} =~ /pid=(\d+)/)[0] // 0 }
my %pids;

# Four requests, one after another: one worker serves them all.
my @r = map { hget('/pool/stat/app.pl') } 1 .. 4;
ok t_cmp(join(' ', map { $_->{code} } @r), '200 200 200 200', 'four requests served');
$pids{ pid_of($_) }++ for @r;
my ($w1) = keys %pids;

# A worker that dies after its header: the client's response is cut.
my $c = hget('/pool/stat/app.pl?crash');
# (502 if the header and the crash reach httpd together, else a cut 200)
ok t_cmp("$c->{code} $c->{complete}", qr/^(200 0|502 \d)$/, 'a crash after the header fails the response');

# Four slow requests at once on two workers: two run, two wait. They hold
# their workers until the test has seen that (they wait for the file
# $release), not for a fixed 0.8 s: in the whole suite the status JSON
# covers every pool made before (190 KB by here), JSON::PP takes about a
# second to decode it on a loaded machine, and no poll fell inside the
# window (the sanitizer run failed so). 8 s: below the waiting ones' queue_wait.
my $release = Apache::Test::vars('t_logs') . "/46_status.release.$$";
unlink $release;
my @h = map { hstart("/pool/stat/app.pl?hold=$release") } 1 .. 4;
my $mid = wait_for(sub { my $p = pool_of(status(), 'stat');
                         $p && $p->{queue}{depth} == 2 ? $p : undef }, 8, 0.02);
ok t_cmp($mid ? $mid->{queue}{depth} : -1, 2, 'status shows two requests waiting');
my @busy = $mid ? grep { $_->{state} eq 'busy' } @{ $mid->{workers} } : ();
ok t_cmp(scalar(@busy), 2, 'and two busy workers');
ok t_cmp(join(' ', map { $_->{uri} } @busy), "/pool/stat/app.pl?hold=$release /pool/stat/app.pl?hold=$release",
         'each with its current URI');
ok t_cmp((grep { defined $_->{busy_ms} && $_->{busy_ms} >= 0 } @busy) == 2 ? 1 : 0, 1,
         'and the time spent in it');
open my $rel, '>', $release or die "$release: $!";
close $rel;
my @slow = hfinish_all(@h);
unlink $release;
ok t_cmp(join(' ', map { $_->{code} } @slow), '200 200 200 200', 'the four slow requests complete');
$pids{ pid_of($_) }++ for @slow;

my $st = status();
my $p = pool_of($st, 'stat');
ok t_cmp($p->{counters}{requests}, 9, 'requests: 9');
ok t_cmp($p->{counters}{served}, 8, 'served: 8');
ok t_cmp($p->{counters}{errors}{crashed}, 1, 'errors by cause: 1 crashed');
ok t_cmp((grep { $_ } map { $p->{counters}{errors}{$_} } grep { $_ ne 'crashed' }
          keys %{ $p->{counters}{errors} }) ? 1 : 0, 0, 'no other errors');
ok t_cmp($p->{counters}{spawns}, scalar(keys %pids), 'spawns: one per worker pid seen (' .
         scalar(keys %pids) . ')');
ok t_cmp($p->{counters}{deaths}{crashed}, 1, 'deaths by reason: 1 crashed');
my ($end) = grep { $_->{pid} == $w1 } @{ $p->{ended} };
ok t_cmp($end ? "$end->{reason} $end->{requests}" : '', 'crashed 4',
         'the first worker ended crashed after serving 4');
ok t_cmp($p->{queue}{max}, 2, 'queue at most: 2');
ok t_cmp($p->{queue}{depth}, 0, 'queue now: 0');
my $sum = 0;
$sum += $_->{requests} for @{ $p->{workers} };
ok t_cmp($sum, 4, 'the live workers served the four slow requests');
ok t_cmp($st->{runner}{pid}, runner_pid(), "the runner's pid");

# The same numbers as HTML and as Prometheus metrics (rendered by the
# runner). The list has one row per pool; ?pool=ID shows one pool.
my $html = hget('/cgiplus-status');
# "Limit reached" counts each time a first waiter found the pool full:
# once or more here, as the four requests and the second worker's start
# fall (a loaded machine gave 2); the HTML must say what the JSON says,
# and that is at least once (two requests waited).
my $reached = $p->{counters}{max_reached} // 0;
ok t_cmp($html->{body}, qr{^<tr><td><a href="\?pool=$p->{id}">$p->{id}</a></td><td>\S+/pool/app\.pl</td><td>cgiplus</td><td>\d+</td><td>\d+</td><td>\d+</td><td>2</td><td>2</td><td>@{[ $reached >= 1 ? $reached : 'at least 1' ]}</td><td>0</td><td>2</td><td>9</td><td>8</td><td>1</td>}m,
         "HTML: the pool's row (max 2, max active 2, limit reached $reached times as in the JSON, queue 0 of at most 2, 9 accepted, 8 served, 1 error)");
my $one = hget("/cgiplus-status?pool=$p->{id}");
ok t_cmp($one->{body}, qr{<h2>Pool $p->{id}: \S+/pool/app\.pl \(cgiplus\)</h2>}, 'HTML names the pool');
# Series are per script: every pool of app.pl in this suite adds up.
my ($req, $crashed) = (0, 0);
for my $q (grep { $_->{script} eq $p->{script} && $_->{mode} eq 'cgiplus' } @{ status()->{pools} }) {
    $req += $q->{counters}{requests};
    $crashed += $q->{counters}{errors}{crashed};
}
my $m = hget('/cgiplus-status?metrics');
ok t_cmp($m->{body}, qr/^cgiplus_pool_requests_total\{script="\Q$p->{script}\E",mode="cgiplus"\} $req$/m,
         "metrics: requests_total of the script ($req, labelled by script and mode only)");
ok t_cmp($m->{body}, qr/^cgiplus_pool_errors_total\{script="\Q$p->{script}\E",mode="cgiplus",cause="crashed"\} $crashed$/m,
         'metrics: errors_total by cause');
