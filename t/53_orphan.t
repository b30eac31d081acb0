# A no-abort worker whose client left is bounded (issue 10, hole 6): it runs
# on for at most one output timeout (here 2 s) after the client went, then
# is stopped (CGIPLUS2084), and its pool slot serves again.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget hstart status pool_of wait_for);

plan tests => 5;

my $errlog = Apache::Test::vars('t_logs') . '/error_log';
sub log_text { open my $fh, '<', $errlog or return ''; local $/; return <$fh> }

ok t_cmp(hget('/pool/orphan/app.pl')->{code}, 200, 'the pool serves');
my $log0 = length log_text();
# 100 s of ticks, no-abort; the client leaves after 0.4 s.
my $h = hstart('/pool/orphan/app.pl?sc=no-abort&ticks=2000&gap=0.05');
sleep 0.4;
close $h->{sock};
my $t0 = time;
my $gone = wait_for(sub { my $p = pool_of(status(), 'orphan');
                          $p && $p->{counters}{deaths}{timeout} }, 6, 0.1);
my $took = time - $t0;
ok t_cmp($gone ? 1 : 0, 1, 'the orphan is stopped (counted as a timeout)');
ok t_cmp($took > 1.2 && $took < 4.5 ? 1 : 0, 1,
         sprintf('about one output timeout after its client left (%.1f s)', $took));
ok t_cmp(substr(log_text(), $log0) =~ /CGIPLUS2084: worker pid \d+ of \S+app\.pl still runs the request of a client that left \d+ ms ago \(no-abort\); stopping it/
         ? 1 : 0, 1, 'and it is logged with its id (2084)');
my $r = hget('/pool/orphan/app.pl', timeout => 10);
ok t_cmp($r->{code}, 200, 'the pool slot serves again');
