# A worker cannot grow the runner's memory through callouts (issue 10, hole
# 4): answers it never reads are bounded (bytes and count), and past the
# bound it is stopped as broken (CGIPLUS2082) and its request gets 502.
# LOG callouts are rate-limited per worker: the excess is dropped and
# summed up in one line (CGIPLUS2083). t/htdocs/pool/flood.pl is the
# hostile script.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget runner_pid);

plan tests => 9;

my $errlog = Apache::Test::vars('t_logs') . '/error_log';
sub log_text { open my $fh, '<', $errlog or return ''; local $/; return <$fh> }
sub peak_kb { # the runner's peak resident set (the answers may be gone by now)
    open my $fh, '<', "/proc/$_[0]/status" or return -1;
    while (<$fh>) { return $1 if /^VmHWM:\s+(\d+)/ }
    return -1;
}

my $r = hget('/pool/flood/flood.pl');
ok t_cmp($r->{code}, 200, 'the flood script answers when asked for nothing hostile');
my ($pid0) = $r->{body} =~ /pid=(\d+)/;
my $runner = runner_pid();
my $peak0 = peak_kb($runner);

# --- 300000 callouts wanting answers (some 18 MB of answers), none read.
my $log0 = length log_text();
$r = hget('/pool/flood/flood.pl?unread=300000', timeout => 60);
my $grew = peak_kb($runner) - $peak0;
ok t_cmp($r->{code}, 502, 'a worker that never reads its callout answers: 502');
ok t_cmp($grew < 4096 ? 1 : 0, 1, "the runner's memory stays bounded (grew $grew KiB)");
my $new = substr log_text(), $log0;
ok t_cmp($new =~ /CGIPLUS2082: worker pid $pid0 of \S+flood\.pl has \d+ callout answers? \(\d+ bytes\) it does not read; stopping it as broken/
         ? 1 : 0, 1, 'the stop is logged with its id (2082)');
ok t_cmp(runner_pid(), $runner, 'the runner itself is fine (same pid)');
$r = hget('/pool/flood/flood.pl');
ok t_cmp($r->{code}, 200, 'the pool serves again with a new worker');

# --- 20000 LOG lines as fast as the script can write them.
$log0 = length log_text();
$r = hget('/pool/flood/flood.pl?log=20000', timeout => 60);
ok t_cmp($r->{code}, 200, 'a LOG flood is not an error of the request');
sleep 1;
$new = substr log_text(), $log0;
my $lines = () = $new =~ /flood line/g;
ok t_cmp($lines >= 1 && $lines <= 150 ? 1 : 0, 1,
         "LOG lines are rate-limited ($lines of 20000 reached the log)");
my @sum = $new =~ /(CGIPLUS2083: [^\n]*)/g;
ok t_cmp(scalar(@sum) == 1 && $sum[0] =~ /dropped (\d+) LOG/ && $1 + $lines == 20000 ? 1 : 0, 1,
         'one summary line counts the dropped ones: ' . ($sum[0] // 'none'));
