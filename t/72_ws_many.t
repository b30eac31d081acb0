# Many WebSocket connections on few workers and few threads: 1000 clients
# (python3-websockets) on a pool of 2 workers, behind an event MPM with 20
# threads in all. Each connection is echoed by one of the two workers; a
# broadcast from one reaches all 1000; the status page counts them per
# worker. 1000 connections open at once on 20 threads shows that an idle
# connection holds no thread (AsyncRequestWorkerFactor lets a child take
# that many: docs/DESIGN.md).
use strict;
use Time::HiRes qw(sleep);
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use lib 't/lib';
use WsTest qw(ws_start ws_stop ws_py ws_log ws_status);

plan tests => 8, need { 'python3-websockets' =>
                        !system("$WsTest::PYTHON -c 'import websockets' 2>/dev/null") };

my $n = 1000;
my ($port) = ws_start(name => 'many', extra => <<'CONF');
ServerLimit 2
StartServers 2
ThreadsPerChild 10
MaxRequestWorkers 20
AsyncRequestWorkerFactor 100
<Location /t/pid.py>
    CGIplusMaxWorkers 2
</Location>
CONF
ok t_cmp($port ? 1 : 0, 1, 'private httpd started (20 threads)');

my $r = ws_py(<<'PY', $port, $n);
import sys, time, collections
raise_nofile(4096)
port, n = sys.argv[1], int(sys.argv[2])
async def main():
    url = "ws://127.0.0.1:%s/t/pid.py" % port
    conns = []
    for i in range(0, n, 100):    # in waves: the listen backlog is finite
        conns += await asyncio.gather(*(connect(url, ping_interval=None) for _ in range(100)))
    async def echo(i, ws):
        await ws.send("m%d" % i)
        return await asyncio.wait_for(ws.recv(), 60)
    replies = await asyncio.gather(*(echo(i, ws) for i, ws in enumerate(conns)))
    ok = sum(1 for i, r in enumerate(replies) if r.endswith(" m%d" % i))
    pids = collections.Counter(r.split()[1] for r in replies)
    t0 = time.time()
    await conns[7].send("bcast hello all")
    got = await asyncio.gather(*(asyncio.wait_for(ws.recv(), 60) for ws in conns))
    t_last = time.time() - t0
    status = json.loads(__import__("urllib.request").request.urlopen(
        "http://127.0.0.1:%s/cgiplus-status?json" % port).read())
    await asyncio.gather(*(ws.close() for ws in conns))
    return {"open": len(conns), "echoed": ok, "pids": list(pids.values()),
            "bcast": sum(1 for g in got if g == "hello all"), "t_last": t_last,
            "ws": status["websocket"]}
done(asyncio.run(main()))
PY
ok t_cmp($r->{open} // 0, $n, "$n connections open at once");
ok t_cmp($r->{echoed} // 0, $n, 'each one echoed');
my @pids = sort { $b <=> $a } @{ $r->{pids} // [] };
ok t_cmp(scalar(@pids), 2, 'by the 2 workers of the pool');
ok t_cmp(($pids[1] // 0) >= $n / 10 ? 1 : 0, 1, "both hold connections (@pids)");
ok t_cmp($r->{bcast} // 0, $n, sprintf('a broadcast reached all %d (the last after %.2f s)',
                                       $n, $r->{t_last} // -1));
my ($pool) = grep { $_->{script} =~ m{/pid\.py$} } @{ $r->{ws}{pools} // [] };
my $sum = 0;
$sum += $_->{connections} for @{ $pool->{workers} // [] };
ok t_cmp(($pool->{connections} // 0) . " $sum", "$n $n",
         'the status page: the pool holds them, its workers add up');
my $st;
for (1 .. 50) { # the closes reach the runner as the clients end
    $st = ws_status($port);
    last if ($st->{websocket}{connections} // -1) == 0;
    sleep 0.2;
}
ok t_cmp($st->{websocket}{connections} // -1, 0, 'all closed: none left open');
ws_stop('many');
