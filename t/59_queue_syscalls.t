# Issue 23: a request that waits for a worker gets it without the runner.
# 50 keep-alive connections on a pool of two workers (the C hello): 48
# requests always wait in the table, and each freed worker goes from the
# child that frees it to the oldest waiter. strace counts the runner's
# system calls (all its threads) during 4000 such requests, then during as
# long with none: the calls are the runner's timers, not the requests'.
# Before the table's queue, each waiting request cost the runner a BEGIN, a
# KICK and a GRANT: thousands of calls here.
# A private httpd of its own, with this one pool and a fixed set of
# children: in the suite's server the runner also keeps every other test's
# pools, and httpd's children come and go with the load.
# A child learns the pool from its first request, which goes through the
# runner (so do its table, its runner connections and each worker's
# descriptors, once). CI twice counted such a start in the window (137
# calls on 2026-12-06, 67 on 2026-12-07, both in a full shard): the 50
# warm-up connections had all gone to one child, and the other learned
# during the count. So the warm-up now goes on, in rounds, until the runner
# is quiet through a whole round. The assertions name the calls.
# bench/queue-strace is the same at 20000 requests.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib "t/lib";
use FreePort qw(free_port);
use lib "t/htdocs/pool/lib";
use PoolTest qw(runner_pid strace_on strace_off);
use PrivHttpd qw(httpd_start);

plan tests => 5,
    need { map { ("needs $_" => system("command -v $_ >/dev/null 2>&1") == 0) } qw(strace h2load curl) };

my $vars = Apache::Test::config()->{vars};
my $port = free_port();
my $url = "http://127.0.0.1:$port/qsys/hello";
my $n = 4000;
my $ex = "$vars->{top_dir}/examples/c";
# Every thread there from the start and none retired: the MPM's own
# comings and goings stay out of the window. Each child has a thread for
# every connection, however the two share them: the event MPM closes idle
# keep-alive connections when all of a child's threads are busy (here:
# waiting), the likely end of one of h2load's connections once (3921 of
# 4000 answered, with 40 threads a child; not reproduced).
my $dir = httpd_start('queue-syscalls', $port, <<"CONF");
<IfModule mpm_event_module>
    StartServers 2
    ServerLimit 2
    ThreadsPerChild 64
    MaxRequestWorkers 128
    MinSpareThreads 1
    MaxSpareThreads 128
</IfModule>
Alias /qsys/hello $ex/hello
<Directory $ex>
    Options +ExecCGI
</Directory>
<Location /qsys/>
    SetHandler cgiplus-script
    CGIplusMaxWorkers 2
    CGIplusQueueDepth 400
</Location>
CONF

# The runner writes its pid file once it serves.
my $runner = 0;
for (1 .. 100) { last if ($runner = runner_pid($dir)); sleep 0.1 }
die "no runner pid in $dir\n" unless $runner;

my $first = `curl -s -w ' %{http_code}' $url`;
ok t_cmp(($first =~ /Hello/ ? 'hello' : $first) . ' ' . ($first =~ /(\d+)$/)[0], 'hello 200',
         'the target answers 200 and the hello');
# Returns the runner's system calls during the window, and its ms.
sub traced {
    my ($what) = @_;
    my $out = "$dir/strace.txt";
    unlink $out;
    my $st = strace_on($runner, '-c', '-o', $out);
    my $t0 = time;
    my $res = $what->();
    my $ms = int((time - $t0) * 1000);
    strace_off($st);
    open my $f, '<', $out or die "$out: $!";
    my @table = <$f>;
    # % time, seconds, usecs/call, calls, [errors,] "total"
    my ($calls) = map { /\stotal$/ ? (split ' ')[3] : () } @table;
    # Which calls, by name, the most first: in the assertions' names, which
    # CI's summary of a failure shows.
    my %by = map { /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/ && $2 ne 'total' ? ($2, $1) : () }
             @table;
    my @top = (sort { $by{$b} <=> $by{$a} || $a cmp $b } keys %by)[0 .. 7];
    my $names = join ', ', map { "$_ $by{$_}" } grep { defined } @top;
    return ($calls // 0, $ms, $res, $names ? ": $names" : '');
}

# Both workers start (a new worker's first request goes through the
# runner), and every child learns the pool: rounds of 1000 requests until
# one leaves the runner as its timers do (a few calls at most).
my ($warm, $wnames);
for (1 .. 10) {
    ($warm, undef, undef, $wnames) =
        traced(sub { system("h2load --h1 -n 1000 -c 50 $url >/dev/null 2>&1") });
    last if $warm <= 5;
}
ok t_cmp($warm <= 5 ? 1 : 0, 1,
         "the runner falls quiet once both children know the pool ($warm calls in the last round$wnames)");

my ($calls, $ms, $h2, $names) = traced(sub { scalar `h2load --h1 -n $n -c 50 $url 2>&1` });
my ($ok) = $h2 =~ /status codes: (\d+) 2xx/;
print map { "#   h2load: $_\n" } grep { /requests:|status codes:|errored|timeout|error/i } split /\n/, $h2
    if ($ok // 0) != $n;
ok t_cmp($ok // 0, $n, "$n requests at 50 connections on 2 workers: all 200");
my ($idle) = traced(sub { sleep $ms / 1000 });
t_debug("runner: $calls calls during $n requests ($ms ms), $idle in as long with none");
ok t_cmp($calls < $n / 100 ? 1 : 0, 1,
         "the runner made $calls system calls during $n requests that waited (under 1 in 100)$names");
ok t_cmp($calls <= 2 * $idle + 20 ? 1 : 0, 1,
         "about what its timers make with no request ($idle in $ms ms)");
