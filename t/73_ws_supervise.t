# WebSocket supervision: a worker that dies closes its connections with
# 1011 and the pool starts another (connections are not moved); a deploy
# lets the old worker keep its connections (new ones go to the new worker,
# which starts though the old one fills CGIplusMaxWorkers)
# until CGIplusWebSocketDrain passes, then they get 1001; apachectl
# graceful keeps live connections (the runner and the old child stay);
# the idle, ping and message timeouts close what they must. A script that
# cannot run (its interpreter missing, a CR ending its #! line) is answered
# 500, as its request pools answer it, again while the backoff lasts; one
# that is not executable 403, as they answer it.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use File::Copy qw(copy);
use Time::HiRes qw(sleep);
use lib 't/lib';
use WsTest qw(ws_start ws_stop ws_py ws_py_start ws_py_wait ws_log ws_status ws_graceful ws_dir ws_deploy_dir
              ws_deploy_pid);

plan tests => 34, need { 'python3-websockets' =>
                         !system("$WsTest::PYTHON -c 'import websockets' 2>/dev/null") };

my $vars = Apache::Test::config()->{vars};
# the deployed script: pid.py with its tag in the file (a new file rolls over)
my $dep = ws_deploy_dir('sup');
ws_deploy_pid($dep, 'v1');

my ($port) = ws_start(name => 'sup', extra => <<"CONF");
Alias /one/ \@DOCROOT\@/ws/
<Location /one/>
    CGIplusMaxWorkers 1
</Location>
Alias /dep/ $dep/
<Directory $dep>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusWebSocketDrain 3s
    # the draining worker does not count: the new one may start
    CGIplusMaxWorkers 1
</Directory>
Alias /slow/ \@DOCROOT\@/ws/
<Location /slow/>
    CGIplusMaxWorkers 1
    CGIplusSpawnRate 1
</Location>
Alias /idle/ \@DOCROOT\@/ws/
<Location /idle/>
    CGIplusWebSocketIdleTimeout 1s
</Location>
Alias /ping/ \@DOCROOT\@/ws/
<Location /ping/>
    CGIplusWebSocketPing 1s
</Location>
Alias /mto/ \@DOCROOT\@/ws/
<Location /mto/>
    CGIplusWebSocketMessageTimeout 1s
</Location>
CONF
ok t_cmp($port ? 1 : 0, 1, 'private httpd started');

# ---- a worker dies: 1011 for each of its connections, a new worker after
my $r = ws_py(<<'PY', $port);
import sys
async def main(port):
    url = "ws://127.0.0.1:%s/one/pid.py" % port
    cs = [await connect(url) for _ in range(3)]
    await cs[0].send("a"); pid1 = (await cs[0].recv()).split()[1]
    await cs[1].send("die")
    codes = []
    for c in cs:
        try:
            await asyncio.wait_for(c.recv(), 10)
        except websockets.ConnectionClosed as e:
            codes.append(e.code)
    n = await connect(url)
    await n.send("b"); pid2 = (await n.recv()).split()[1]
    await n.close()
    return {"codes": codes, "pid1": pid1, "pid2": pid2}
done(asyncio.run(main(sys.argv[1])))
PY
ok t_cmp(join(',', @{ $r->{codes} // [] }), '1011,1011,1011', 'a worker died: its 3 connections closed with 1011');
ok t_cmp($r->{pid2} && $r->{pid2} ne $r->{pid1} ? 1 : 0, 1, 'a new connection meets a new worker');
ok t_cmp(ws_log('sup'), qr/CGIPLUS2820: WebSocket worker pid $r->{pid1} of \S+ ended: exited \(exited with code 3\) with 3 connections open/,
         'the runner logged the death with its connections (2820)');

# ---- CGIplusSpawnRate 1: the worker that replaces a dead one waits for
# the rate's next token (a second after the first start), then starts;
# the upgrade waits for it, not for CGIplusQueueWait (10 s, then 503).
$r = ws_py(<<'PY', $port);
import sys, time
async def main(port):
    url = "ws://127.0.0.1:%s/slow/pid.py" % port
    out = {}
    a = await connect(url)
    await a.send("die")
    try:
        await asyncio.wait_for(a.recv(), 10)
    except websockets.ConnectionClosed as e:
        out["code"] = e.code
    t0 = time.time()
    try:
        b = await connect(url)
        await b.send("x"); out["b"] = await b.recv()
        await b.close()
    except Exception as e:
        out["b"] = repr(e)
    out["after"] = round(time.time() - t0, 1)
    return out
done(asyncio.run(main(sys.argv[1])))
PY
ok t_cmp($r->{code} // 0, 1011, 'CGIplusSpawnRate 1: the worker died (1011)');
ok t_cmp($r->{b} // '', qr/^v0 \d+ x$/, "the next upgrade meets a new worker once the rate allows (after $r->{after} s)");

# The timeouts' four cases (below) run meanwhile, each in a client of its
# own: their pools are their own (/idle/, /ping/, /mto/), and their waits
# (1 s, 3.5 s, a few pings, 1 s) overlap the drain's 3 s. Their results
# are read after apachectl graceful's, in the order they are reported.
my %tmo;
$tmo{idle} = ws_py_start(<<'PY', $port);
import sys, time
async def main(port):
    out = {}
    c = await connect("ws://127.0.0.1:%s/idle/pid.py" % port, ping_interval=None)
    t0 = time.time()
    try:
        await asyncio.wait_for(c.recv(), 10)
    except websockets.ConnectionClosed as e:
        out["idle"] = [e.code, round(time.time() - t0, 1)]
    return out
done(asyncio.run(main(sys.argv[1])))
PY
# websockets answers pings: a pinged connection stays
$tmo{pinged} = ws_py_start(<<'PY', $port);
import sys
async def main(port):
    p = await connect("ws://127.0.0.1:%s/ping/pid.py" % port, ping_interval=None)
    await asyncio.sleep(3.5)
    await p.send("alive"); out = {"pinged": await p.recv()}
    await p.close()
    return out
done(asyncio.run(main(sys.argv[1])))
PY
# a client that never answers pings is dropped
$tmo{noanswer} = ws_py_start(<<'PY', $port);
import sys, time
port = sys.argv[1]
out = {}
raw = Raw("127.0.0.1", int(port), "/ping/pid.py")
t0 = time.time(); pings = 0
while True:
    f = raw.recv(10)
    if f is None or f == "timeout":
        out["noanswer"] = [pings, f is None, round(time.time() - t0, 1)]
        break
    pings += f[2] == 9
done(out)
PY
# a message begun and never finished
$tmo{mto} = ws_py_start(<<'PY', $port);
import sys, time
port = sys.argv[1]
m = Raw("127.0.0.1", int(port), "/mto/pid.py")
m.send(frame(1, b"half", fin=False))
t0 = time.time()
done({"mto": [m.close_code(10), round(time.time() - t0, 1)]})
PY

# ---- a deploy: the old worker keeps its connection until the drain time
ws_deploy_pid($dep, 'v2', 'v2.py'); # renamed over pid.py by the client, between its steps
$r = ws_py(<<'PY', $port, $dep);
import sys, os, time
async def main(port, dep):
    url = "ws://127.0.0.1:%s/dep/pid.py" % port
    a = await connect(url)
    await a.send("x"); out = {"a1": await a.recv()}
    os.rename(dep + "/v2.py", dep + "/pid.py")    # the deploy
    await asyncio.sleep(0.5)
    b = await connect(url)
    await b.send("y"); out["b1"] = await b.recv()
    await a.send("z"); out["a2"] = await a.recv()
    t0 = time.time()
    try:
        await asyncio.wait_for(a.recv(), 10)
    except websockets.ConnectionClosed as e:
        out["a_code"] = e.code
        out["a_after"] = round(time.time() - t0, 1)
    await b.send("w"); out["b2"] = await b.recv()
    await b.close()
    return out
done(asyncio.run(main(sys.argv[1], sys.argv[2])))
PY
my ($pa) = ($r->{a1} // '') =~ /^v1 (\d+) x$/;
ok t_cmp($pa ? 1 : 0, 1, "before the deploy: v1 ($r->{a1})");
ok t_cmp($r->{b1} // '', qr/^v2 \d+ y$/, 'after it a new connection meets the new script (CGIplusMaxWorkers 1: the old worker draining does not count)');
ok t_cmp($r->{a2} // '', qr/^v1 $pa z$/, 'the old connection stays with its old worker');
ok t_cmp($r->{a_code} // 0, 1001, "CGIplusWebSocketDrain 3s: then it gets 1001 (after $r->{a_after} s)");
ok t_cmp($r->{b2} // '', qr/^v2 \d+ w$/, 'the new one goes on');
# the pool's lines, each with its id ($dw: the deployed script, as logged)
my $dw = qr{\S+/ws-sup-deploy/pid\.py};
sub logged { my ($re) = @_; for (1 .. 100) { return 1 if ws_log('sup') =~ $re; sleep 0.1 } return 0 }
ok t_cmp(logged(qr/CGIPLUS2800: new WebSocket pool #\d+ for $dw \(max_workers 1, max connections 0, max message 1048576 bytes\)/), 1,
         'the pool was logged with its settings (2800)');
ok t_cmp(logged(qr/CGIPLUS2801: $dw changed \(inode \d+\): WebSocket pool #\d+ rolls over to generation 1; 1 old workers keep their connections \(drain 3000 ms\)/), 1,
         'the deploy logged (2801)');
ok t_cmp(logged(qr/CGIPLUS2807: started WebSocket worker pid \d+ for $dw \(1 of 1, generation 1\)/), 1,
         "... the new worker counted 1 of 1, the draining one left out (2807)");
ok t_cmp(logged(qr/CGIPLUS2816: WebSocket worker pid $pa of $dw: drain time over, closing its 1 connections with 1001.*\n(?s:.*)CGIPLUS2814: stopping WebSocket worker pid $pa of $dw \(deploy, 0 connections\)/), 1,
         '... the drain time over, the old worker stopped (2816, 2814)');

# the timeouts' clients are done before the restart
$tmo{$_} = (ws_py_wait($tmo{$_}) // {})->{$_} for qw(idle pinged noanswer mto);

# ---- apachectl graceful keeps live connections
$r = ws_py(<<'PY', $port, "$vars->{httpd}", ws_dir('sup') . '/httpd.conf', ws_dir('sup') . '/error_log');
import sys, subprocess, urllib.request
async def main(port, httpd, conf, log):
    def runner_pid():
        return json.loads(urllib.request.urlopen("http://127.0.0.1:%s/cgiplus-status?json" % port).read())["runner"]["pid"]
    def restarts():
        with open(log, errors="replace") as f:
            return f.read().count("resuming normal operations")
    url = "ws://127.0.0.1:%s/t/pid.py" % port
    c = await connect(url)
    await c.send("before"); before = await c.recv()
    r1 = runner_pid()
    n = restarts()
    subprocess.run([httpd, "-f", conf, "-k", "graceful"], check=True)
    # until the restart is done (httpd logs it), 30 s at most
    for _ in range(300):
        if restarts() > n:
            break
        await asyncio.sleep(0.1)
    await c.send("after"); after = await asyncio.wait_for(c.recv(), 10)
    d = await connect(url)
    await d.send("new"); new = await d.recv()
    await c.close(); await d.close()
    return {"before": before, "after": after, "new": new, "same_runner": r1 == runner_pid(),
            "code": c.close_code}
done(asyncio.run(main(*sys.argv[1:])))
PY
ok t_cmp($r->{after} // '', qr/ after$/, 'after apachectl graceful the connection still echoes');
ok t_cmp($r->{same_runner} ? 1 : 0, 1, '... the runner is the same');
ok t_cmp($r->{new} // '', qr/ new$/, '... and a new connection is served');
ok t_cmp($r->{code}, 1000, '... and the old one closes cleanly');

# ---- timeouts (run during the deploy's drain, above)
$r = \%tmo;
ok t_cmp($r->{idle}[0] // 0, 1001, "CGIplusWebSocketIdleTimeout 1s: closed with 1001 (after $r->{idle}[1] s)");
ok t_cmp(($r->{idle}[1] // 0) >= 0.9 && $r->{idle}[1] < 4 ? 1 : 0, 1, '... about then');
ok t_cmp($r->{pinged} // '', qr/ alive$/, 'CGIplusWebSocketPing 1s: a client that answers stays');
ok t_cmp(($r->{noanswer}[0] // 0) >= 1 && $r->{noanswer}[1] ? 1 : 0, 1,
         "one that does not is pinged ($r->{noanswer}[0]) and dropped after $r->{noanswer}[2] s");
ok t_cmp(ws_log('sup'), qr/CGIPLUS1809: WebSocket \d+ of \S+\/pid\.py: client 127\.0\.0\.1 answered no ping; closing it/,
         '... logged (1809)');
ok t_cmp($r->{mto}[0] // 0, 1008, "CGIplusWebSocketMessageTimeout 1s: a stalled message gets 1008 (after $r->{mto}[1] s)");

# ---- scripts that cannot run
for (['nointerp.py', "#!/nonexistent/python3\n"], ['crlf.py', "#!/usr/bin/python3\r\nprint()\n"]) {
    my ($name, $text) = @$_;
    open my $fh, '>', "$dep/$name" or die $!;
    print $fh $text;
    close $fh;
    chmod 0755, "$dep/$name";
}
copy("$vars->{documentroot}/ws/pid.py", "$dep/noexec.py") or die $!;
chmod 0644, "$dep/noexec.py";
$r = ws_py(<<'PY', $port);
import sys
port = int(sys.argv[1])
out = {}
for name in ("nointerp", "crlf"):
    out[name] = []
    for i in range(3):
        c = Raw("127.0.0.1", port, "/dep/%s.py" % name)
        out[name].append([c.status, c.headers.get("retry-after")])
out["noexec"] = Raw("127.0.0.1", port, "/dep/noexec.py").status
done(out)
PY
ok t_cmp(join(' ', map { $_->[0] } @{ $r->{nointerp} // [] }), '500 500 500',
         'a missing interpreter: 500 for each upgrade, during the backoff too');
ok t_cmp(join(' ', map { $_->[0] } @{ $r->{crlf} // [] }), '500 500 500',
         'a #! line ending in CR: 500 for each upgrade');
ok t_cmp(scalar(grep { defined $_->[1] } @{ $r->{nointerp} // [] }, @{ $r->{crlf} // [] }), 0,
         '... no Retry-After (it will not pass by itself)');
ok t_cmp($r->{noexec} // 0, 403, 'a script that is not executable: 403');
my $log = ws_log('sup');
ok t_cmp($log, qr{CGIPLUS2802: \S+/noexec\.py: Permission denied \(WebSocket upgrade /dep/noexec\.py\)},
         '... logged (2802)');
ok t_cmp($log, qr{CGIPLUS2818: cannot start \S+/nointerp\.py: exec: its interpreter '/nonexistent/python3' \(named on its #! line\) does not exist},
         'the runner names the missing interpreter (2818)');
ok t_cmp($log, qr{CGIPLUS2818: cannot start \S+/crlf\.py: exec: its #! line ends in a carriage return .*\^M}
         , '... and the CR');
ws_stop('sup');

# A worker that does not answer an upgrade in time (busy in one connection):
# the runner answers it 504 before httpd's Timeout (3 s here), the worker
# goes on.
($port) = ws_start(name => 'sup2', timeout => 3, extra => <<'CONF');
Alias /one/ @DOCROOT@/ws/
<Location /one/>
    CGIplusMaxWorkers 1
</Location>
CONF
$r = ws_py(<<'PY', $port);
import sys, time
async def main(port):
    url = "ws://127.0.0.1:%s/one/pid.py" % port
    a = await connect(url)
    await a.send("pid"); pid = (await a.recv()).split()[1]
    await a.send("sleep 5")
    # the upgrade once the worker sleeps in that connection (sent at once,
    # it was answered 101 now and then, the message not read yet), 10 s
    # at most
    for _ in range(200):
        try:
            with open("/proc/%s/wchan" % pid) as f:
                if "nanosleep" in f.read():
                    break
        except OSError:
            pass
        await asyncio.sleep(0.05)
    t0 = time.time()
    c = Raw("127.0.0.1", int(port), "/one/pid.py")
    out = {"status": c.status, "after": round(time.time() - t0, 1)}
    out["a"] = await asyncio.wait_for(a.recv(), 10)
    await a.close()
    return out
done(asyncio.run(main(sys.argv[1])))
PY
ok t_cmp($r->{status} // 0, 504, "an upgrade the busy worker did not answer: 504 after $r->{after} s");
ok t_cmp(($r->{a} // '') . ' ' . (ws_log('sup2') =~ /CGIPLUS2827: WebSocket worker pid \d+ of \S+ did not answer upgrade \/one\/pid\.py in time/ ? 'logged' : ''),
         'slept logged', 'the worker went on (its connection had its answer), and the runner logged it (2827)');
ws_stop('sup2');
