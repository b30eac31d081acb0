# A request never runs twice (issue 10, hole 2): once the runner's socket
# took any of a request, a lost runner answers 502 and the request is not
# sent again; only a request the runner never took is retried. A POST
# records a payment in a ledger and waits; the runner is killed (SIGKILL)
# while the request is on its worker, on a connection the httpd child had
# used before (the case the module used to resend). Through the runner
# (CGIplusDirect off): t/54 covers a direct request when the runner dies.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use LWP::UserAgent;
use IO::Select;
use IO::Socket::INET;
use POSIX ();
use Time::HiRes qw(sleep);
use lib 't/htdocs/pool/lib';
use PoolTest qw(runner_pid wait_for);

plan tests => 10;

my $vars = Apache::Test::config()->{vars};
my $base = "http://$vars->{servername}:$vars->{port}";
my $ledger = "$vars->{t_logs}/ledger.txt";
unlink $ledger;
open my $lf, '>', $ledger or die;
close $lf;
chmod 0666, $ledger;
sub lines { open my $fh, '<', $ledger or return (); my @l = <$fh>; return @l }

# One keep-alive client: its requests meet one httpd child, whose runner
# connection the first request leaves idle for the second.
my $ua = LWP::UserAgent->new(keep_alive => 1, timeout => 60);
my $r = $ua->get("$base/pool/ledger/ledger.pl");
ok t_cmp($r->code, 200, 'warm-up: the ledger script answers');
my $runner = runner_pid();

pipe my $rd, my $wr or die;
my $kid = fork // die;
if (!$kid) {
    close $rd;
    my $p = $ua->post("$base/pool/ledger/ledger.pl?ledger=$ledger&sleep=20",
                      Content => 'payment-1');
    print $wr $p->code, "\n";
    close $wr;
    POSIX::_exit(0);
}
close $wr;
ok t_cmp(wait_for(sub { lines() == 1 }, 10) ? 1 : 0, 1, 'the payment is recorded once');
sleep 0.2;
kill 'KILL', $runner;
my $code = <$rd> // '';
chomp $code;
waitpid $kid, 0;
ok t_cmp($code, 502, 'the runner died while the request was on its worker: 502');
# A resent request would have reached the restarted runner within its 5 s
# connect wait; give it that long to show up.
wait_for(sub { lines() > 1 }, 6);
my @l = lines();
ok t_cmp(scalar(@l), 1, 'and the payment was not made a second time');
my $new = wait_for(sub { my $p = runner_pid(); $p && $p != $runner ? $p : 0 }, 10);
ok t_cmp($new ? 1 : 0, 1, 'httpd started the runner again');
open my $el, '<', "$vars->{t_logs}/error_log" or die;
my $log = do { local $/; <$el> };
ok t_cmp($log =~ /CGIPLUS1081: lost the runner \(pid $runner\) before the response of \S+ledger\.pl began \(worker pid \d+ had it\); not sent again/ ? 1 : 0,
         1, 'logged (1081), naming the worker that had it');
ok t_cmp(wait_for(sub { $ua->get("$base/pool/ledger/ledger.pl")->code == 200 }, 10) ? 1 : 0, 1,
         'the next request is served');

# The runner killed in the middle of a response it relays: the client's
# connection is cut (its response was begun: nothing is sent again), said
# (1071), and the next request is served by the new runner.
$runner = wait_for(sub { runner_pid() }, 10);
my $c = IO::Socket::INET->new(PeerAddr => "$vars->{servername}:$vars->{port}", Timeout => 10) or die;
print $c "GET /pool/ledger/app.pl?ticks=200&gap=0.05 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my ($resp, $sel) = ('', IO::Select->new($c));
while ($resp !~ /tick 3\n/ && $sel->can_read(10)) {
    last unless sysread $c, $resp, 65536, length $resp;
}
kill 'KILL', $runner;
while ($sel->can_read(20)) {
    last unless sysread $c, $resp, 65536, length $resp;
}
ok t_cmp(($resp =~ m{^HTTP/1\.1 200} ? 'begun' : 'not begun') . ' ' . ($resp =~ /tick 200\n/ ? 'whole' : 'cut'), 'begun cut',
         'the runner killed mid-response: the response is cut');
open $el, '<', "$vars->{t_logs}/error_log" or die;
$log = do { local $/; <$el> };
ok t_cmp($log =~ /CGIPLUS1071: lost the runner in the middle of the response of \S+app\.pl; cutting the client connection/ ? 1 : 0, 1,
         'logged (1071)');
ok t_cmp(wait_for(sub { $ua->get("$base/pool/ledger/app.pl")->code == 200 }, 10) ? 1 : 0, 1,
         'the next request is served');
