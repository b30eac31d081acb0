# Issue 23: a request that waits for a worker gets it without the runner.
# 50 keep-alive connections on a pool of two workers (/direct/qsys/, the C
# hello): 48 requests always wait in the table, and each freed worker goes
# from the child that frees it to the oldest waiter. strace counts the
# runner's system calls (all its threads) during 4000 such requests, then
# during as long with none: the calls are the runner's timers, not the
# requests'. Before the table's queue, each waiting request cost the
# runner a BEGIN, a KICK and a GRANT: thousands of calls here.
# bench/queue-strace is the same at 20000 requests.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);
use Time::HiRes qw(sleep time);
use lib "t/htdocs/pool/lib";
use PoolTest qw(await_trace);

plan tests => 4,
    need { map { ("needs $_" => system("command -v $_ >/dev/null 2>&1") == 0) } qw(strace h2load) };

my $vars = Apache::Test::config()->{vars};
my $port = $vars->{port};
my $url = "http://127.0.0.1:$port/direct/qsys/hello";
my $n = 4000;

open my $pf, '<', "$vars->{t_logs}/cgiplus-runner.pid" or die "runner pid file: $!";
chomp(my $runner = <$pf>);

my $r = GET('/direct/qsys/hello');
ok t_cmp($r->code . ' ' . ($r->content =~ /Hello/ ? 'hello' : $r->content), '200 hello',
         'the target answers 200 and the hello');
# Both workers start (a new worker's first request goes through the
# runner), and every child learns the pool.
system("h2load --h1 -n 3000 -c 50 $url >/dev/null 2>&1");

# Returns the runner's system calls during the window, and its ms.
sub traced {
    my ($what) = @_;
    my $out = "$vars->{t_logs}/strace-qsys-$$.txt";
    unlink $out;
    my @tids = map { m{/(\d+)$} ? $1 : () } glob("/proc/$runner/task/*");
    my $st = fork // die "fork: $!";
    if (!$st) {
        open STDERR, '>', '/dev/null';
        exec 'strace', '-c', '-q', '-o', $out, map { ('-p', $_) } @tids;
        exit 127;
    }
    await_trace($st, @tids);
    my $t0 = time;
    my $res = $what->();
    my $ms = int((time - $t0) * 1000);
    kill 'INT', $st;
    waitpid $st, 0;
    open my $f, '<', $out or die "$out: $!";
    my ($calls) = map { /^\S.*\s(\d+)(?:\s+\d+)?\s+total$/ ? $1 : () } <$f>;
    return ($calls // 0, $ms, $res);
}

my ($calls, $ms, $h2) = traced(sub { scalar `h2load --h1 -n $n -c 50 $url 2>&1` });
my ($ok) = $h2 =~ /status codes: (\d+) 2xx/;
ok t_cmp($ok // 0, $n, "$n requests at 50 connections on 2 workers: all 200");
my ($idle) = traced(sub { sleep $ms / 1000 });
t_debug("runner: $calls calls during $n requests ($ms ms), $idle in as long with none");
ok t_cmp($calls < $n / 100 ? 1 : 0, 1,
         "the runner made $calls system calls during $n requests that waited (under 1 in 100)");
ok t_cmp($calls <= 2 * $idle + 20 ? 1 : 0, 1,
         "about what its timers make with no request ($idle in $ms ms)");
