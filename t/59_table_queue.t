# Waiting in the table (issue 23; docs/DESIGN.md, "Who owns a worker"): a
# request that finds no idle worker takes a ticket in the shared table and
# sleeps until a releasing httpd child hands it the worker. Its own httpd
# child may die meanwhile, with real processes here: SIGKILLed while the
# request waits (its ticket leaves the queue, the request never runs, the
# next one is served), and stopped (SIGSTOP) while the releasing child
# hands it the worker, then killed (the worker, clean, goes to the next
# waiting request: neither drained nor killed, and that request runs on
# it). A ledger file proves what ran, and how often. And a pool that may
# grow while requests wait in the table: the runner starts its workers
# (each new worker's first request goes through it: the oldest waiter is
# asked to relay, 2952), and every request is served. A worker the runner
# granted to a stopped child's request, killed before that child takes it:
# the request goes to the runner again (1715), served once.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hstart hfinish hget status pool_of wait_for child_of kept_get);

plan tests => 27;

my $vars = Apache::Test::config()->{vars};
my $errlog = "$vars->{t_logs}/error_log";
sub log_from { my ($off) = @_; open my $fh, '<', $errlog or return ''; seek $fh, $off, 0; local $/; return <$fh> // '' }

my $ledger = "$vars->{t_logs}/ledger-wait.txt";
sub lines { open my $fh, '<', $ledger or return (); my @l = <$fh>; chomp @l; return @l }
sub bodies { return join ' ', map { (split ' ', $_, 2)[1] } lines() }
sub depth { my $p = pool_of(status(), 'wait'); return $p ? $p->{queue}{depth} : -1 }
my $url = "/pool/wait/ledger.pl?ledger=$ledger";

# A kept-alive connection that an httpd child other than those in @avoid
# serves (it takes a connection with its first request), and whose child
# knows the pool (that first request is one of the pool's): taken while
# the pool's worker is free. Its first response is read to its end, so
# nothing of it is taken for the next one's.
sub conn_not_in {
    my (@avoid) = @_;
    my @spare;
    for (1 .. 60) {
        my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $vars->{port},
                                      Proto => 'tcp', Timeout => 5) or die "connect: $!";
        my $buf = kept_get($s, '/pool/wait/ledger.pl');
        die "first request: $buf\n" unless $buf =~ m{^HTTP/1\.1 200 };
        my $c = child_of($s);
        if ($c && !grep { $_ == $c } @avoid) {
            close $_ for @spare;
            return ($s, $c);
        }
        push @spare, $s; # kept open meanwhile: the next one may go elsewhere
    }
    die "every connection went to httpd children @avoid\n";
}

# Every httpd child knows the pool (the runner named it to each): their
# requests wait in the table, not in the runner.
sub warm {
    system("h2load --h1 -n 300 -c 30 http://127.0.0.1:$vars->{port}/pool/wait/ledger.pl >/dev/null 2>&1");
    hget('/pool/wait/ledger.pl') for 1 .. 30;
}

sub reset_ledger {
    open my $lf, '>', $ledger or die "$ledger: $!";
    close $lf;
    chmod 0666, $ledger;
}

warm();
reset_ledger();

# ---- 1. The httpd child dies while its request waits.
my ($sa, $child_a) = conn_not_in();
my ($sb, $child_b) = conn_not_in($child_a);
my $hold = hstart("$url&sleep=2", method => 'POST', body => 'hold', sock => $sa);
ok t_cmp(wait_for(sub { bodies() eq 'hold' }, 5) ? 1 : 0, 1, 'the worker is busy');
my $wpid = (split ' ', (lines())[0])[0];
my $b = hstart($url, method => 'POST', body => 'waited-killed', sock => $sb);
ok t_cmp(wait_for(sub { depth() == 1 }, 3) ? 1 : 0, 1, 'a second request waits in the queue');
my $off = -s $errlog;
kill 'KILL', $child_b;
ok t_cmp(hfinish($b, 5)->{code}, 0, 'its httpd child is killed: its client gets no response');
ok t_cmp(wait_for(sub { log_from($off) =~ /CGIPLUS2950: httpd child pid $child_b went away while its request waited for a worker/ }, 5)
         ? 1 : 0, 1, 'the runner takes its ticket out of the queue (2950)');
ok t_cmp(wait_for(sub { depth() == 0 }, 2) ? 1 : 0, 1, 'nobody waits any more');
my $c = hstart($url, method => 'POST', body => 'after');
my ($rh, $rc) = (hfinish($hold), hfinish($c));
ok t_cmp("$rh->{code} $rc->{code}", '200 200', 'the busy request and the next one are answered');
ok t_cmp(bodies(), 'hold after', 'the killed one never ran; the next one did, once');

# ---- 2. The httpd child is stopped while the worker is handed to its
# request, and killed before it takes it.
warm(); # httpd replaced the killed child: the new one learns the pool
reset_ledger();
($sa, $child_a) = conn_not_in();
($sb, $child_b) = conn_not_in($child_a);
my ($sc) = conn_not_in($child_b);
$hold = hstart("$url&sleep=1.5", method => 'POST', body => 'hold', sock => $sa);
ok t_cmp(wait_for(sub { bodies() eq 'hold' }, 5) ? 1 : 0, 1, 'the worker is busy again');
$wpid = (split ' ', (lines())[0])[0];
$b = hstart($url, method => 'POST', body => 'handed-killed', sock => $sb);
wait_for(sub { depth() == 1 }, 3);
$c = hstart($url, method => 'POST', body => 'next', sock => $sc);
ok t_cmp(wait_for(sub { depth() == 2 }, 3) ? 1 : 0, 1, 'two requests wait, in two httpd children');
kill 'STOP', $child_b;
$rh = hfinish($hold);
ok t_cmp($rh->{code}, 200, 'the busy request ends: its child hands the worker to the oldest waiter');
# It is offered to the stopped child's request, which cannot take it.
sleep 0.5;
ok t_cmp(bodies(), 'hold', 'the next request has not run: the worker went to the stopped one');
$off = -s $errlog;
kill 'KILL', $child_b;
kill 'CONT', $child_b;
$rc = hfinish($c, 10);
ok t_cmp("$rc->{code} $rc->{body}", "200 recorded next\n", 'the request after it gets the worker');
my $log = log_from($off);
ok t_cmp($log =~ /CGIPLUS2951: httpd child pid $child_b went away while worker pid $wpid of \S+ was handed to its waiting request/
         ? 1 : 0, 1, 'the runner took the worker back from the dead child\'s ticket (2951)');
ok t_cmp(bodies(), 'hold next', 'the killed one never ran');
my @pids = map { (split ' ', $_)[0] } lines();
ok t_cmp("@pids", "$wpid $wpid", 'on the same worker: it was not replaced');
ok t_cmp(scalar(() = $log =~ /CGIPLUS250[25]: .*$wpid|CGIPLUS2028: worker pid $wpid /g), 0,
         'it was neither drained nor stopped: it was clean');
ok t_cmp(depth(), 0, 'nobody waits at the end');

# ---- 3. The pool grows while requests wait in the table (2 workers a
# second at most: the later ones are started for waiting requests).
$off = -s $errlog;
my $g = `h2load --h1 -n 48 -c 12 'http://127.0.0.1:$vars->{port}/pool/grow/app.pl?sleep=0.2' 2>&1`;
ok t_cmp(($g =~ /status codes: (\d+) 2xx/)[0] // 0, 48, '48 requests at c12 on a pool growing to 4: all 200')
    or print STDERR map { "# $_\n" } split /\n/, $g;
$log = log_from($off);
my $started = () = $log =~ /CGIPLUS2013: started worker pid \d+ for \S+app\.pl \(\d of 4/g;
ok t_cmp($started, 4, 'it grew to its 4 workers');
ok t_cmp($log =~ /CGIPLUS2952: pool #\d+ of \S+app\.pl grows: the oldest waiting request/ ? 1 : 0, 1,
         'a waiting request was asked to come through the runner for a new worker (2952)');
ok t_cmp(pool_of(status(), 'grow')->{queue}{depth}, 0, 'nobody waits at the end');

# ---- 4. A request of a child that does not know the pool yet waits in
# the runner's queue; the runner grants it the worker (2507), which is
# killed before the child (stopped meanwhile) takes it: the request goes
# to the runner again (1715) and a new worker serves it, once.
{
    my $gurl = '/pool/granted/app.pl';
    my $gate = "$vars->{t_logs}/granted-hold";
    unlink $gate;
    ($sa, $child_a) = conn_not_in();
    ($sb, $child_b) = conn_not_in($child_a);
    $off = -s $errlog;
    $hold = hstart("$gurl?victim&hold=$gate", sock => $sa);
    my $gw = 0;
    wait_for(sub { ($gw) = log_from($off) =~ /app\.pl: pid (\d+) has its request/; $gw }, 10);
    ok t_cmp($gw ? 1 : 0, 1, 'the worker of /pool/granted/ is busy');
    $b = hstart("$gurl?n=granted", sock => $sb);
    ok t_cmp(wait_for(sub { my $p = pool_of(status(), 'granted'); $p && $p->{queue}{depth} == 1 }, 5) ? 1 : 0, 1,
             "another child's request waits in the runner's queue");
    kill 'STOP', $child_b;
    END { kill 'CONT', $child_b if $child_b }
    open my $gf, '>', $gate or die "$gate: $!";
    close $gf;
    ok t_cmp(hfinish($hold)->{code}, 200, 'the busy request ends');
    ok t_cmp(wait_for(sub { log_from($off) =~ /CGIPLUS2507: request \d+ \(\/pool\/granted\/app\.pl\?n=granted\) waited \d+ ms; worker pid $gw goes to httpd child pid $child_b/ }, 5)
             ? 1 : 0, 1, 'the runner grants the worker to the stopped child (2507)');
    kill 'KILL', $gw;
    wait_for(sub { log_from($off) =~ /CGIPLUS2028: worker pid $gw of \S+ ended/ }, 5);
    kill 'CONT', $child_b;
    my $rb = hfinish($b, 15);
    my ($np) = ($rb->{body} // '') =~ /^pid=(\d+)/m;
    ok t_cmp("$rb->{code} " . ($np && $np != $gw ? 'new worker' : $np // 'none'), '200 new worker',
             'the request is served by a new worker');
    ok t_cmp(log_from($off), qr/CGIPLUS1715: the worker granted for \S+app\.pl \(slot \d+\) ended before it took the request; the request goes to the runner again/,
             'the child found the granted worker gone (1715)');
    unlink $gate;
}
