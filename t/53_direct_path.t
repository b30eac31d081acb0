# The direct path (issue 11): an httpd child serves a request on an idle
# worker itself. strace on the real runner during 1000 requests finds no
# system call tied to a request; the httpd children's system calls per
# request are counted, and are fewer than through the runner
# (CGIplusDirect off). Requests queue behind a small pool under h2load:
# they wait in the table, the runner traced meanwhile makes no system call
# for them; every one is answered, none hangs, no worker is killed.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);
use Time::HiRes qw(sleep time);
use lib "t/htdocs/pool/lib";
use PoolTest qw(strace_on strace_off);
use JSON::PP ();

plan tests => 20,
    need { map { ("needs $_" => system("command -v $_ >/dev/null 2>&1") == 0) } qw(strace h2load) };

my $vars = Apache::Test::config()->{vars};
my $port = Apache::Test::config()->{vars}{port};
my $logf = "$vars->{t_logs}/error_log";

open my $pf, '<', "$vars->{t_logs}/httpd.pid" or die "pid file: $!";
chomp(my $parent = <$pf>);
my ($runner) = grep { `cat /proc/$_/comm` =~ /cgiplus/ }
               map { /^\s*(\d+)/ ? $1 : () } `ps --ppid $parent -o pid=`;
ok t_cmp($runner ? 1 : 0, 1, "the runner is a child of httpd (pid @{[$runner // '?']})");

# httpd's children that serve requests now: the MPM's, with their threads
# (not the runner, nor mod_cgid's daemon).
sub children {
    return join ' ', sort { $a <=> $b } grep { my @t = glob("/proc/$_/task/*"); $_ != ($runner // 0) && @t > 1 }
        map { /^\s*(\d+)/ ? $1 : () } `ps --ppid $parent -o pid=`;
}

# The children a window traces are taken just before it: the MPM may have
# started one since the test began, and h2load's connections may all go to it.
my @children;

# strace -c on the given pids (threads included) while code runs: calls.
# With $full, every call is listed instead (the text is returned).
sub traced_calls {
    my ($code, @pids) = @_;
    my $full = ref $pids[0] ? shift(@pids)->{full} : 0;
    my $out = "$vars->{t_logs}/strace-direct-$$.txt";
    unlink $out;
    my $st = strace_on(\@pids, ($full ? ('-s', '8') : '-c'), '-o', $out);
    my $res = $code->();
    sleep 0.3;
    strace_off($st);
    open my $fh, '<', $out or die "$out: $!";
    my $text = do { local $/; <$fh> };
    # Each call once: complete, or resumed in the window. A wait left
    # unfinished at detach (a pool's domain thread, parked since its pool
    # was made: one a pool of the runner's, many in a long shard) made no
    # call in the window.
    return (scalar(() = $text =~ /^\d*\s*(?:\w+\((?!.*<unfinished \.\.\.>$)|<\.\.\. \w+ resumed>)/mg),
            $res, $text) if $full;
    my ($total, %by) = (0);
    while ($text =~ /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/mg) {
        $by{$2} = $1;
    }
    $total = delete $by{total} // 0;
    # Without the error log's writes (the test server logs at trace8: each
    # line is getpid, gettid, write) and lock waits, what a request costs.
    my $core = $total;
    $core -= $by{$_} // 0 for qw(write getpid gettid futex);
    return ($total, $res, $text, $core, \%by);
}

sub h2load {
    my ($n, $c, $path, $log) = @_;
    my $t0 = time;
    my $lf = $log ? "--log-file=$log" : '';
    my $o = `h2load --h1 $lf -n $n -c $c http://127.0.0.1:$port$path 2>&1`;
    my ($ok) = $o =~ /(\d+) succeeded/;
    my ($two) = $o =~ /status codes: (\d+) 2xx/;
    my ($max) = $o =~ /time for request:\s+\S+\s+(\S+)/;
    return { ok => $ok // 0, two => $two // 0, max => $max // '?', secs => time - $t0, out => $o };
}

# A child's first request for a pool goes through the runner (that is how
# it learns the pool): the children that have had a worker of a pool
# (/direct/NAME/) handed to them (2507 names them), the log read on from
# where it was.
my ($logpos, %learnt) = (0);
sub all_learnt {
    my ($name) = @_;
    if (open my $fh, '<', $logf) {
        seek $fh, $logpos, 0;
        while (<$fh>) {
            $learnt{$1}{$2} = 1 if m{CGIPLUS2507: request \d+ \(/direct/(\w+)/hello\).* httpd child pid (\d+)};
        }
        $logpos = tell $fh;
    }
    return !grep { !$learnt{$name}{$_} } split ' ', children();
}

# Warm up: every child has the table, the pool and its workers' channels.
# "fast" keeps 4 workers idle; 2 clients always find one free. New
# connections until every child has learnt "fast" (which child takes one
# is the MPM's choice: 30 once left one out, whose first request was then
# relayed in the window).
h2load(3000, 40, '/direct/basic/hello');
h2load(3000, 40, '/direct/fast/hello');
sub learn { my ($name) = @_; for (1 .. 300) { last if all_learnt($name); GET("/direct/$name/hello") } }
learn('fast');
my $r = GET '/direct/basic/hello';
ok t_cmp($r->code . ' ' . $r->content, "200 Hello from CGIplus\n", 'a direct request answers');

# If the MPM starts a child meanwhile, that child learns the pool in the
# window: measured again (at most three times).
my ($rcalls, $res, $text);
for my $try (1 .. 3) {
    my $kids = children();
    ($rcalls, $res, $text) = traced_calls(sub { h2load(1000, 2, '/direct/fast/hello') },
                                          { full => 1 }, $runner);
    last if children() eq $kids && all_learnt('fast');
    t_debug("httpd's children changed during window $try: measured again");
    learn('fast');
}
ok t_cmp($res->{two}, 1000, '1000 requests answered 200 while the runner is traced');
t_debug($text);
# A request through the runner is a BEGIN frame read ("CP", 1, 3) and a
# record written to a worker ("!\n"); a child meeting a worker for the first
# time asks for its descriptors once (set-up, not a request).
my $begins = () = $text =~ /^\d*\s*read\(\d+, "CP\\1\\3/mg;
my $records = () = $text =~ /^\d*\s*write\(\d+, "!\\n/mg;
ok t_cmp("$begins $records", '0 0', 'the runner read no request and wrote no record during 1000 direct requests');
ok t_cmp($rcalls < 100 ? 1 : 0, 1, "the runner made $rcalls system calls in all (set-up only: none per request)");

my ($ocalls) = traced_calls(sub { h2load(1000, 4, '/direct/off/hello') }, $runner);
ok t_cmp($ocalls >= 3000 ? 1 : 0, 1, "with CGIplusDirect off the runner relays: $ocalls system calls for 1000");

@children = split ' ', children();
my ($dchild, $dres, $dtext, $dcore) = traced_calls(sub { h2load(1000, 4, '/direct/basic/hello') }, @children, $runner);
my ($rchild, $rres, $rtext, $rcore) = traced_calls(sub { h2load(1000, 4, '/direct/off/hello') }, @children, $runner);
ok t_cmp($dres->{two} + $rres->{two}, 2000, 'all traced requests answered');
my ($dper, $rper, $dc, $rc) = map { sprintf '%.1f', $_ / 1000 } $dchild, $rchild, $dcore, $rcore;
t_debug("httpd children and runner: $dper system calls per request direct ($dc without "
        . "logging and locks), $rper relayed ($rc)\n$dtext");
ok t_cmp($dc < $rc ? 1 : 0, 1, "httpd and the runner: $dc system calls per direct request, $rc "
         . "through the runner (without log writes and futex; all calls: $dper and $rper)");
ok t_cmp($dc <= 15 ? 1 : 0, 1, "at most 15 system calls per direct request ($dc)");

# Queueing: two workers, 50 clients. A request that finds no idle worker
# waits in the table's queue (issue 23): the child that frees a worker
# hands it over and wakes it, the runner takes no part. Warmed at c50 first,
# so every httpd child knows the pool (its first request of a pool goes
# through the runner to learn it).
h2load(2000, 50, '/direct/small/hello');
learn('small');
my ($gcalls, $gres, $gtext);
for my $try (1 .. 3) {
    my $kids = children();
    ($gcalls, $gres, $gtext) = traced_calls(sub { h2load(4000, 50, '/direct/small/hello') },
                                            { full => 1 }, $runner);
    last if children() eq $kids && all_learnt('small');
    t_debug("httpd's children changed during queued window $try: measured again");
    learn('small');
}
ok t_cmp($gres->{two}, 4000, '4000 requests at c50 on a pool of 2 answered 200 while the runner is traced');
my $qbegins = () = $gtext =~ /^\d*\s*read\(\d+, "CP\\1\\3/mg;
my $grants = () = $gtext =~ /^\d*\s*write\(\d+, "CP\\1\\26/mg;
my $qrecords = () = $gtext =~ /^\d*\s*write\(\d+, "!\\n/mg;
ok t_cmp("$qbegins $grants $qrecords", '0 0 0',
         'no request reached the runner: no BEGIN read, no GRANT, no record written');
ok t_cmp($gcalls < 100 ? 1 : 0, 1,
         "the runner made $gcalls system calls during 4000 queued requests (set-up only: none per request)");
# Every call is listed: the table's futex calls (shared, on its memory: the
# waiting itself, the waker's and the sleeper's) count; httpd's own lock
# waits between its threads (FUTEX_*_PRIVATE) vary with how much it logs and
# do not, nor the log's writes.
@children = split ' ', children();
my ($qall, $qres, $qtext) = traced_calls(sub { h2load(2000, 50, '/direct/small/hello') },
                                         { full => 1 }, @children);
my ($qcore, $qshared, $qprivate) = (0, 0, 0);
for my $call ($qtext =~ /^\d*\s*(\w+\([^\n]*)/mg) {
    my ($name) = $call =~ /^(\w+)/;
    next if $name =~ /^(?:write|getpid|gettid)$/;
    if ($name eq 'futex') { $call =~ /FUTEX_\w+_PRIVATE/ ? $qprivate++ : $qshared++; next }
    $qcore++;
}
my ($qc, $qs, $qp) = map { sprintf '%.1f', $_ / 2000 } $qcore + $qshared, $qshared, $qprivate;
t_debug("httpd children, queued requests: $qc system calls per request ($qs of them the "
        . "table's futex calls; httpd's private futex calls apart: $qp)\n$qtext");
ok t_cmp($qres->{two} == 2000 && $qs > 0 && $qc <= 16 ? 1 : 0, 1,
         "httpd children: at most 16 system calls per queued request ($qc, $qs of them the "
         . "table's futex calls; without log writes and httpd's own lock waits)");
my $before = -s $logf;
my $reqlog = "$vars->{t_logs}/h2load-direct-small.log";
my $q = h2load(20000, 20, '/direct/small/hello', $reqlog);
ok t_cmp($q->{two}, 20000, '20000 requests at c20 on a pool of 2: all 200');
my $maxms = $q->{max} =~ /^([\d.]+)(us|ms|s)$/ ? $1 * { us => 0.001, ms => 1, s => 1000 }->{$2} : 1e9;
if ($maxms >= 10000) { # what happened meanwhile: the slowest requests, the log
    open my $rl, '<', $reqlog or die "$reqlog: $!";
    my @slow = (sort { $b->[2] <=> $a->[2] } map { [ split ' ' ] } <$rl>)[0 .. 4];
    print STDERR "# slowest (start us, status, us): ", join(' | ', map { "@$_" } @slow), "\n";
    open my $lf, '<', $logf or die "$logf: $!";
    seek $lf, $before, 0;
    print STDERR map { "# $_" } grep { /CGIPLUS\d+|AH\d+|mpm/ && !/trace|CGIPLUS20(04|21|13):/ } <$lf>;
}
# A missed wake-up would wait out CGIplusQueueWait (20 s: 503) or Timeout.
ok t_cmp($maxms < 10000 ? 1 : 0, 1, "the slowest took $q->{max}: no missed wake-up");
my $at50 = -s $logf;
my $q2 = h2load(20000, 50, '/direct/small/hello');
if ($q2->{two} != 20000) { # what h2load saw, and the event MPM closing connections
    print STDERR map { "# $_\n" } split /\n/, $q2->{out};
    open my $lf, '<', $logf or die "$logf: $!";
    seek $lf, $at50, 0;
    print STDERR map { "# $_" } grep { /All workers are busy|MaxRequestWorkers|scoreboard is full/ } <$lf>;
}
ok t_cmp($q2->{two}, 20000, '20000 more at c50: all 200');
my $h2c = Apache::Test::config()->port('cgiplus_h2c');
my $o2 = `h2load -n 20000 -c 20 -m 10 http://127.0.0.1:$h2c/direct/small/hello 2>&1`;
ok t_cmp(($o2 =~ /status codes: (\d+) 2xx/)[0] // 0, 20000,
         '20000 over HTTP/2 (h2c, 20 connections of 10 streams): all 200');
open my $lf, '<', $logf or die "$logf: $!";
seek $lf, $before, 0;
my $log = do { local $/; <$lf> };
my @killed = $log =~ /(aborted \(killed by signal 9\)|killed by signal 9)/g;
ok t_cmp(scalar(@killed), 0, 'no worker killed under load');
my @started = $log =~ /CGIPLUS2013: started worker pid \d+ for \S+examples\/c\/hello/g;
ok t_cmp(scalar(@started), 0, 'no worker started anew under load (the two stay)');

# The status page counts direct requests too: its two workers' counts add
# up to every request the pool served.
my $st = eval { JSON::PP::decode_json(GET('/cgiplus-status?json')->content) } // {};
my $sum = 0;
for my $p (grep { ($_->{script} // '') =~ m{examples/c/hello$} } @{ $st->{pools} // [] }) {
    $sum += $_->{requests} // 0 for @{ $p->{workers} // [] };
}
ok t_cmp($sum >= 40200 ? 1 : 0, 1, "the status page's per-worker counts include direct requests ($sum)");
