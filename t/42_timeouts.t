# Timeouts: a script silent past CGIplusTimeoutNoProgress gets 504 and its
# worker is stopped (SIGTERM, SIGKILL after CGIplusKillGrace) and replaced;
# past CGIplusTimeoutOutput once the response started, the connection is
# cut. A script changes its own with the TIMEOUT-* callouts or Script-Control,
# and with no-abort it runs on and is reused. Our 504 comes before httpd's.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget hstart hfinish status pool_of wait_for);

plan tests => 22;

sub pid_of { my ($r) = @_; return ($r->{body} =~ /pid=(\d+)/)[0] // 0 }
my $errlog = Apache::Test::vars('t_logs') . '/error_log';
sub log_has { my ($re) = @_; open my $fh, '<', $errlog or return 0;
    local $/; my $l = <$fh>; return $l =~ $re ? 1 : 0 }

my $warm = hget('/pool/timeout/app.pl');
my $old = pid_of($warm);

# --- no output at all for longer than 1 s: 504, the worker is replaced.
my $r = hget('/pool/timeout/app.pl?sleep=3');
ok t_cmp($r->{code}, 504, 'a script silent past its no-progress timeout gets 504');
ok t_cmp($r->{secs} > 0.9 && $r->{secs} < 1.6 ? 1 : 0, 1, sprintf('after about 1 s (%.2f s)',
                                                                 $r->{secs}));
$r = hget('/pool/timeout/app.pl');
ok t_cmp($r->{code}, 200, 'the pool recovers: the next request is served');
ok t_cmp(pid_of($r) != $old ? 1 : 0, 1, 'by a new worker');
ok t_cmp($r->{secs} < 1 ? 1 : 0, 1, sprintf('at once (%.2f s)', $r->{secs}));
my $p = pool_of(status(), 'timeout');
ok t_cmp($p->{counters}{errors}{timeout}, 1, 'the timeout is counted');
ok t_cmp((grep { $_->{pid} == $old && $_->{reason} eq 'timeout' } @{ $p->{ended} }) ? 1 : 0, 1,
         'the old worker ended for "timeout"');

# --- output keeps coming, but the whole response takes past 2.5 s: cut.
$r = hget('/pool/timeout/app.pl?ticks=12&gap=0.3');
ok t_cmp($r->{code}, 200, 'the response had started (200)');
ok t_cmp($r->{complete}, 0, 'then the connection is cut at the output timeout');
ok t_cmp($r->{secs} > 2.3 && $r->{secs} < 3.3 ? 1 : 0, 1, sprintf('at %.2f s', $r->{secs}));

# --- a script lifts its own no-progress timeout with the callout.
$r = hget('/pool/timeout/app.pl?callout=TIMEOUT-NOPROGRESS:%20none&after=1.5');
ok t_cmp($r->{body}, qr/answer=200 timeout-noprogress none/, 'TIMEOUT-NOPROGRESS answered');
ok t_cmp($r->{complete}, 1, 'and its 1.5 s of silence is allowed');

# --- ... or shortens its output timeout (0.01 minutes = 600 ms).
$r = hget('/pool/timeout/app.pl?callout=TIMEOUT-OUTPUT:%200.01&ticks=8&gap=0.25');
ok t_cmp($r->{complete} == 0 && $r->{secs} < 1.2 ? 1 : 0, 1,
         sprintf('TIMEOUT-OUTPUT 0.01 cut it at %.2f s', $r->{secs}));

# --- Script-Control does the same: X-timeout-output=none lets it run 2.8 s.
$r = hget('/pool/timeout/app.pl?sc=X-timeout-output%3Dnone&ticks=10&gap=0.28');
ok t_cmp($r->{complete}, 1, 'Script-Control X-timeout-output=none: complete after 2.8 s');
ok t_cmp($r->{headers}{'script-control'} // 'absent', 'absent', 'Script-Control never reaches the client');

# --- no-abort: the client is cut at the timeout, the worker finishes and is reused.
$r = hget('/pool/timeout/app.pl?sc=no-abort&after=1.6');
my $na = pid_of($r);
ok t_cmp($r->{complete}, 0, 'no-abort: the client still gets its timeout');
$r = hget('/pool/timeout/app.pl');
ok t_cmp(pid_of($r), $na, 'and the same worker serves the next request');

# --- a worker that ignores SIGTERM gets SIGKILL after the grace (1 s).
$r = hget('/pool/timeout/app.pl?ignore_term&sleep=4');
my $stubborn = pid_of(hget('/pool/timeout/app.pl')) ? 1 : 0;
ok t_cmp($r->{code}, 504, 'a script ignoring SIGTERM: 504 all the same');
ok t_cmp(wait_for(sub { log_has(qr/CGIPLUS2071: worker pid \d+ of \S+app\.pl did not exit 1000 ms after SIGTERM/) }, 3),
         1, 'it is killed after CGIplusKillGrace (logged 2071)');
ok t_cmp($stubborn, 1, 'and the pool goes on serving');

# --- our timeout fires before httpd's Timeout by default.
hget('/pool/other/app.pl');
my $st = status();
$p = pool_of($st, 'other');
ok t_cmp($st->{runner}{http_timeout_ms}, 60000, "the runner knows httpd's Timeout");
ok t_cmp($p->{settings}{timeout_noprogress}, 59000, 'the default no-progress timeout is 1 s below it');
