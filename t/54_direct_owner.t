# Every failure on the direct path has one owner (docs/DESIGN.md, "Who owns
# a worker"), tested with real processes: the httpd child killed while it
# holds a worker (the runner drains the worker and reuses it); the client
# gone mid-response (the worker is drained and reused, not killed); the
# worker killed (502, only that request fails); the runner killed
# (the request on its worker completes, once; later ones succeed). And a
# hostile script on the direct path: answers it never reads are bounded
# (502, the worker stopped as broken), LOG callouts rate-limited.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use POSIX ();
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hstart hfinish hget status pool_of wait_for runner_pid child_of);

plan tests => 24;

my $vars = Apache::Test::config()->{vars};
my $errlog = "$vars->{t_logs}/error_log";
sub log_from { my ($off) = @_; open my $fh, '<', $errlog or return ''; seek $fh, $off, 0; local $/; return <$fh> // '' }
sub pid_of { ($_[0]{body} =~ /pid=(\d+)/)[0] // -1 }
sub slurp { open my $fh, '<', $_[0] or return ''; local $/; return <$fh> // '' }


# Warm: every httpd child knows the pool (so requests go direct), one
# worker known by pid.
system("h2load --h1 -n 300 -c 30 http://127.0.0.1:$vars->{port}/pool/owner/app.pl >/dev/null 2>&1");
hget('/pool/owner/app.pl') for 1 .. 30; # one connection each: every child learns the pool
my $w = hget('/pool/owner/app.pl');
ok t_cmp($w->{code}, 200, 'warm-up');
my $wpid = pid_of($w);

# ---- 1. The httpd child dies holding the worker. It must hold it (the
# request direct): a child the MPM started after the warm-up relays its
# first request of the pool (section 4); such a try is let finish.
my ($off, $h);
for my $try (1 .. 5) {
    $off = -s $errlog;
    $h = hstart('/pool/owner/app.pl?sleep=1');
    # The runner logs a relayed request's 2021 before the worker has it: once
    # the worker sleeps in it the line is there if it was relayed (a fixed
    # wait may end before a descheduled runner wrote it).
    wait_for(sub { slurp("/proc/$wpid/wchan") =~ /nanosleep/ }, 5, 0.01);
    last if log_from($off) !~ m{CGIPLUS2021: request \d+ \(/pool/owner/app\.pl\?sleep=1\)};
    hfinish($h, 5);
}
my $child = child_of($h->{sock});
ok t_cmp($child > 0 ? 1 : 0, 1, "found the httpd child serving it ($child)");
kill 'KILL', $child if $child;
my $got = hfinish($h, 5);
ok t_cmp($got->{code}, 0, 'its client gets no response (its child died)');
my $log = wait_for(sub { my $l = log_from($off); $l =~ /CGIPLUS2505/ ? $l : '' }, 5);
ok t_cmp($log =~ /CGIPLUS2502: httpd child pid $child went away holding worker pid $wpid/ ? 1 : 0, 1,
         'the runner takes the worker back from the dead child (2502)');
sleep 1.2; # the script ends its sleep; the runner reads it to its sentinel
my $after = hget('/pool/owner/app.pl');
ok t_cmp("$after->{code} " . pid_of($after), "200 $wpid", 'drained and reused: the same worker serves next');
$log = log_from($off);
ok t_cmp(scalar(() = $log =~ /CGIPLUS2013: started worker/g), 0, 'no worker started meanwhile');

# ---- 2. The client leaves mid-response.
$off = -s $errlog;
$h = hstart('/pool/owner/app.pl?ticks=8&gap=0.25');
my $sel = IO::Select->new($h->{sock});
my $first = '';
$sel->can_read(5) and sysread $h->{sock}, $first, 4096;
ok t_cmp($first, qr/^HTTP\/1\.1 200/, 'the slow response began');
close $h->{sock};
sleep 2.5; # the script finishes its ticks; httpd notices the client is gone
my $next = hget('/pool/owner/app.pl');
ok t_cmp("$next->{code} " . pid_of($next), "200 $wpid", 'the same worker serves the next request');
$log = log_from($off);
ok t_cmp(scalar(() = $log =~ /CGIPLUS2028: worker pid $wpid of /g), 0,
         'it did not end (other pools of earlier tests may be retiring theirs)');

# ---- 3. The worker is killed mid-request.
$off = -s $errlog;
$h = hstart('/pool/owner/app.pl?sleep=1');
sleep 0.3;
kill 'KILL', $wpid;
$got = hfinish($h, 10);
ok t_cmp($got->{code}, 502, 'its request fails 502');
my $n2 = hget('/pool/owner/app.pl');
ok t_cmp($n2->{code}, 200, 'the next request is served');
ok t_cmp(pid_of($n2) != $wpid ? 1 : 0, 1, 'by a new worker');

# ---- 4. The runner is killed while a direct request is on its worker.
my $ledger = "$vars->{t_logs}/ledger-direct.txt";
unlink $ledger;
open my $lf, '>', $ledger or die;
close $lf;
chmod 0666, $ledger;
sub lines { open my $fh, '<', $ledger or return (); my @l = <$fh>; return @l }
system("h2load --h1 -n 300 -c 30 http://127.0.0.1:$vars->{port}/pool/ledgerd/ledger.pl >/dev/null 2>&1");
hget('/pool/ledgerd/ledger.pl') for 1 .. 30;
my $runner = runner_pid();
# The payment must go direct. A child the MPM started after the warm-up
# (h2load's 30 connections make it spawn) relays its first request of the
# pool, and a relayed request dies with the runner (502 by design, 1081:
# CI once met that). Such a try is let finish, and another payment made.
my ($pay, $direct, $rec) = ('', 0, 0);
for my $try (1 .. 5) {
    $pay = "pay-$try";
    $off = -s $errlog;
    $h = hstart("/pool/ledgerd/ledger.pl?ledger=$ledger&sleep=2", method => 'POST', body => $pay);
    $rec = wait_for(sub { grep { / \Q$pay\E$/ } lines() }, 5) ? 1 : 0;
    $direct = log_from($off) !~ m{CGIPLUS2021: request \d+ \(/pool/ledgerd/ledger\.pl\?};
    last if $direct || !$rec;
    hfinish($h, 10);
}
ok t_cmp("$rec $direct", '1 1', "the payment ($pay) is recorded, by a worker its httpd child claimed itself");
kill 'KILL', $runner;
$got = hfinish($h, 10);
ok t_cmp("$got->{code} $got->{complete}", '200 1', 'the runner died under it: the request completes');
ok t_cmp($got->{body}, "recorded $pay\n", 'with its own answer');
my $new = wait_for(sub { my $p = runner_pid(); $p && $p != $runner ? $p : 0 }, 10);
ok t_cmp($new ? 1 : 0, 1, 'httpd started the runner again');
ok t_cmp(wait_for(sub { hget('/pool/ledgerd/ledger.pl')->{code} == 200 }, 10) ? 1 : 0, 1,
         'later requests are served');
ok t_cmp(scalar(grep { / \Q$pay\E$/ } lines()), 1, 'and the payment was made once');

# ---- 5. Callout floods on the direct path (t/htdocs/pool/flood.pl).
system("h2load --h1 -n 200 -c 20 http://127.0.0.1:$vars->{port}/pool/floodd/flood.pl >/dev/null 2>&1");
hget('/pool/floodd/flood.pl') for 1 .. 30;
my $f0 = hget('/pool/floodd/flood.pl');
my ($fpid) = $f0->{body} =~ /pid=(\d+)/;
$off = -s $errlog;
my $fl = hget('/pool/floodd/flood.pl?unread=300000', timeout => 60);
ok t_cmp($fl->{code}, 502, 'direct: a worker that never reads its callout answers: 502');
$log = log_from($off);
ok t_cmp($log =~ /CGIPLUS1704: script \S+flood\.pl \(worker pid $fpid\) does not read its callout answers/ ? 1 : 0,
         1, 'logged (1704)');
my $fn = hget('/pool/floodd/flood.pl');
ok t_cmp($fn->{code} == 200 && ($fn->{body} =~ /pid=(\d+)/)[0] != $fpid ? 1 : 0, 1,
         'it was stopped: a new worker serves next');
ok t_cmp(wait_for(sub { log_from($off) =~ /CGIPLUS2028: worker pid $fpid of \S+ ended: broken/ }, 5) ? 1 : 0,
         1, 'as broken (2028)');
$off = -s $errlog;
$fl = hget('/pool/floodd/flood.pl?log=20000', timeout => 60);
$log = log_from($off);
my $nlog = () = $log =~ /CGIPLUS1110: \S+ says: flood line/g;
ok t_cmp("$fl->{code} $nlog", '200 100', 'direct: a LOG flood: 200, the first 100 lines logged');
ok t_cmp($log =~ /CGIPLUS1711: \S+flood\.pl \(worker pid \d+\) sent 20000 LOG and WATCH callouts in one request; the 19900 past the first 100 were dropped/
         ? 1 : 0, 1, 'and one line counts the rest (1711)');
