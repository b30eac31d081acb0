# The WebSocket pools on the status page (HTML, JSON, metrics: connections
# per pool and worker, messages in and out), and WebSocket scripts under
# the prefork and worker MPMs, where a connection holds its process or
# thread for its life (docs/DESIGN.md): echo and a broadcast to all.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use lib 't/lib';
use WsTest qw(ws_start ws_stop ws_py ws_log ws_dir);
use PrivateHttpd qw(private_conf private_check fresh_dir);

my @bad = (
    [ 'CGIplusWebSocketMaxMessage 100', qr/CGIplusWebSocketMaxMessage takes a number of bytes of at least 125 / ],
    [ 'CGIplusWebSocketMaxMessage 17M', qr/CGIplusWebSocketMaxMessage takes at most 16777216 bytes \(16M\), not '17M'/ ],
    [ 'CGIplusWebSocketOverflow 1009', qr/CGIplusWebSocketOverflow takes '1008' .* or 'drop' .*not '1009'/ ],
    [ 'CGIplusWebSocketPing 5x', qr/CGIplusWebSocketPing takes a duration/ ],
    [ 'CGIplusWebSocketPing 5ms', qr/CGIplusWebSocketPing takes a duration of at least 10ms, or 'none', not '5ms'/ ],
    [ 'CGIplusWebSocketMaxRate 0', qr/CGIplusWebSocketMaxRate takes a whole number from 1 to 100000000, or 'none', not '0'/ ],
    [ 'CGIplusWebSocket maybe', qr/CGIplusWebSocket must be On or Off/ ],
    # websocket is BEGIN's alone (an upgrade), not a mode a scope names
    [ 'CGIplusMode websocket', qr/CGIplusMode takes 'cgiplus' \(persistent workers\), 'cgi' \(one process per request\) or 'fastcgi' \(FastCGI applications as persistent workers\), not 'websocket'/ ],
);
plan tests => 7 + 2 * 3 + @bad, need { 'python3-websockets' =>
                                !system("$WsTest::PYTHON -c 'import websockets' 2>/dev/null") };

my ($port) = ws_start(name => 'status');
ok t_cmp($port ? 1 : 0, 1, 'private httpd started');
my $r = ws_py(<<'PY', $port);
import sys, urllib.request
port = sys.argv[1]
def get(q):
    return urllib.request.urlopen("http://127.0.0.1:%s/cgiplus-status%s" % (port, q)).read().decode()
async def main():
    # Each join reaches those there before the next connects: a worker
    # broadcasts its join after its accept, and another worker's later
    # join may overtake it (u1's then reaches u2 after u2's own: a CI
    # failure; 14 of 60 rounds with the worker of u1 paused 1 ms after each
    # write).
    cs = []
    for i in range(3):
        cs.append(await connect("ws://127.0.0.1:%s/c/ws_chat?name=u%d" % (port, i)))
        for c in cs:
            m = await asyncio.wait_for(c.recv(), 10)
            assert m == "* u%d joined" % i, m
    await cs[0].send("hi")
    for c in cs:
        assert await c.recv() == "u0: hi"
    out = {"json": json.loads(get("?json"))["websocket"], "html": get(""), "metrics": get("?metrics")}
    for c in cs:
        await c.close()
    return out
done(asyncio.run(main()))
PY
my ($pool) = grep { $_->{script} =~ m{/ws_chat$} } @{ $r->{json}{pools} // [] };
ok t_cmp($pool->{connections} // -1, 3, 'JSON: the chat pool holds 3 connections');
my $held = 0;
$held += $_->{connections} for @{ $pool->{workers} // [] };
ok t_cmp($held, 3, 'JSON: its workers hold them');
ok t_cmp(($pool->{counters}{messages_in} // 0) . ' ' . ($pool->{counters}{messages_out} // 0), '1 9',
         'JSON: 1 message in, 9 out (each join to those there, the message to 3)');
ok t_cmp($r->{html}, qr{<h2>WebSocket pools</h2>.*ws_chat</td><td>3</td>}s, 'HTML: the pool with its 3 connections');
ok t_cmp($r->{metrics}, qr/^cgiplus_ws_connections\{script="[^"]*ws_chat"\} 3$/m, 'metrics: connections');
ok t_cmp($r->{metrics}, qr/^cgiplus_ws_messages_total\{script="[^"]*ws_chat",direction="in"\} 1$/m,
         'metrics: messages in');
ws_stop('status');

for my $mpm ('prefork', 'worker') {
    ($port) = ws_start(name => $mpm, mpm => $mpm, extra => <<'CONF');
StartServers 2
MaxRequestWorkers 16
CONF
    ok t_cmp($port ? 1 : 0, 1, "$mpm: private httpd started");
    $r = ws_py(<<'PY', $port);
import sys
port = sys.argv[1]
async def main():
    cs = []
    for i in range(6):           # each join to all there first, as above
        cs.append(await connect("ws://127.0.0.1:%s/py/ws_chat.py?name=p%d" % (port, i)))
        for c in cs:
            m = await asyncio.wait_for(c.recv(), 10)
            assert m == "* p%d joined" % i, m
    await cs[3].send("to all")
    got = [await asyncio.wait_for(c.recv(), 10) for c in cs]
    e = await connect("ws://127.0.0.1:%s/c/ws_echo" % port)
    await e.send("x" * 100000); back = await e.recv()
    for c in cs + [e]:
        await c.close()
    return {"bcast": sum(g == "p3: to all" for g in got), "echo": back == "x" * 100000}
done(asyncio.run(main()))
PY
    ok t_cmp($r->{bcast} // 0, 6, "$mpm: 6 connections at once, a broadcast reaches all");
    ok t_cmp($r->{echo} ? 1 : 0, 1, "$mpm: a 100000-byte echo");
    ws_stop($mpm);
}

# A bad value stops httpd from starting, saying why.
my $dir = ws_dir('badconf');
for my $b (@bad) {
    fresh_dir($dir);
    open my $fh, '>', "$dir/httpd.conf" or die $!;
    print $fh private_conf($dir, 1, [], $b->[0]);
    close $fh;
    my ($rc, $out) = private_check("$dir/httpd.conf");
    ok t_cmp($rc != 0 && $out =~ $b->[1] ? 1 : 0, 1, "'$b->[0]' refused: " . (split /\n/, $out)[0]);
}
