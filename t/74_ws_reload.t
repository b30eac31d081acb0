# A graceful restart that changes a WebSocket scope's settings makes a new
# WebSocket pool; the old one, once it has no connection, retires like a
# superseded request pool (docs/RUNNER.md, "Retiring pools": 3 s unused),
# its idle workers stop (before: they stayed until idle_timeout and the
# pool until pool_idle, 10 minutes). A connection still open keeps it.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/lib';
use WsTest qw(ws_start ws_py ws_log ws_graceful ws_status ws_dir);

plan tests => 7, need { 'python3-websockets' =>
                        !system("$WsTest::PYTHON -c 'import websockets' 2>/dev/null") };

my ($port) = ws_start(name => 'reload');
ok t_cmp($port ? 1 : 0, 1, 'private httpd started');

my $echo = <<'PY';
import sys
async def main(port):
    c = await connect("ws://127.0.0.1:%s/c/ws_echo" % port)
    await c.send("x"); got = await c.recv()
    await c.close()
    return {"got": got}
done(asyncio.run(main(sys.argv[1])))
PY

sub ws_pools {
    my $st = ws_status($port) or return ();
    return grep { $_->{script} =~ m{/examples/c/ws_echo$} } @{ $st->{websocket}{pools} // [] };
}

my $r = ws_py($echo, $port);
ok t_cmp($r->{got} // '', 'x', 'an echo before the restart');
my ($old) = ws_pools();
my $old_id = $old ? $old->{id} : -1;

open my $fh, '>>', ws_dir('reload') . '/httpd.conf' or die "httpd.conf: $!";
print $fh "CGIplusWebSocketMaxMessage 64K\n";
close $fh;
ws_graceful('reload');
my $new;
my $until = time + 15;
while (time < $until) {
    $r = ws_py($echo, $port);
    ($new) = grep { $_->{id} != $old_id } ws_pools();
    last if $new;
    sleep 0.3;
}
ok t_cmp($new ? $new->{settings}{max_message} : 0, 65536, 'the new settings make a new pool');

my $gone = 0;
$until = time + 10;
while (time < $until) {
    my ($o) = grep { $_->{id} == $old_id } ws_pools();
    $gone = !$o || ($o->{retired} && !@{ $o->{workers} // [] });
    last if $gone;
    sleep 0.3;
}
ok t_cmp($gone ? 1 : 0, 1, 'the superseded pool retired and its workers stopped');
ok t_cmp(ws_log('reload'), qr/CGIPLUS2804: WebSocket pool #$old_id of \S+ retired: superseded/,
         'logged as superseded (2804)');
my $freed = 0;
for (1 .. 100) {
    last if ($freed = ws_log('reload') =~ /CGIPLUS2805: WebSocket pool #$old_id of \S+ freed/);
    sleep 0.1;
}
ok t_cmp($freed ? 1 : 0, 1, 'then freed (2805, debug)');
my ($n) = grep { $_->{id} == ($new ? $new->{id} : -1) } ws_pools();
ok t_cmp($n && !$n->{retired} ? 1 : 0, 1, 'the new pool stays');
