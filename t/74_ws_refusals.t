# WebSocket upgrades refused because no worker can take them: each gets
# 503 with Retry-After, the runner's line (2823) and the module's (1061)
# name the cause, the status page counts it, and the pool serves again
# once a worker can start. The runner may hold one worker
# (CGIplusMaxWorkersTotal 1). An upgrade to a pool without a worker stops
# a request pool's idle worker to make room (2067), as a request pool
# does; a request pool never stops a WebSocket worker holding a
# connection (503 after its CGIplusQueueWait), but does stop one whose
# last connection closed, as an idle request worker (2067), a request
# arriving then or waiting already. With that connection open,
# an upgrade to a second pool finds no worker and none may start or be
# stopped; after a deploy the first pool's only worker drains its
# connection and no new one may start, so one upgrade waits
# (CGIplusQueueDepth 1), the next finds the queue full, and the waiting
# one gets 503 after CGIplusQueueWait.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use lib 't/lib';
use WsTest qw(ws_start ws_stop ws_py ws_log ws_deploy_dir ws_deploy_pid);

plan tests => 32, need { 'python3-websockets' =>
                         !system("$WsTest::PYTHON -c 'import websockets' 2>/dev/null") };

my $vars = Apache::Test::config()->{vars};
my $dep = ws_deploy_dir('ref');
ws_deploy_pid($dep, 'v1');
ws_deploy_pid($dep, 'v2', 'v2.py');

my ($port) = ws_start(name => 'ref', extra => <<"CONF");
CGIplusMaxWorkersTotal 1
<Location /c/counter>
    CGIplusQueueWait 1s
</Location>
Alias /dep/ $dep/
<Directory $dep>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusQueueDepth 1
    CGIplusQueueWait 1s
    CGIplusIdleTimeout 1s
    CGIplusWebSocketDrain 60s
</Directory>
CONF
ok t_cmp($port ? 1 : 0, 1, 'private httpd started');

my @scripts = ("$dep/pid.py", "$vars->{documentroot}/ws/pid.py", "$vars->{top_dir}/examples/c/hello");
my $r = ws_py(<<'PY', $port, @scripts);
import sys, threading, urllib.request, urllib.error
port, dep_script, other_script, hello_script = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
def get(q):
    return urllib.request.urlopen("http://127.0.0.1:%d/cgiplus-status?%s" % (port, q)).read().decode()
def pool(script):
    for p in json.loads(get("json"))["websocket"]["pools"]:
        if p["script"] == script:
            return p
    return {}
def req_pool(script):
    for p in json.loads(get("json"))["pools"]:
        if p["script"] == script:
            return p
    return {}
def until(f, secs=20):
    end = time.time() + secs
    while time.time() < end:
        if f():
            return True
        time.sleep(0.05)
    return False
def echo(c, m):
    c.send(frame(1, m.encode()))
    r = c.message(10)
    return r[1].decode() if isinstance(r, tuple) and r[0] != "close" else repr(r)
def bye(c):
    c.send(frame(8, b"\x03\xe8")); c.close_code(); c.eof()
def up(path):
    return Raw("127.0.0.1", port, path)
def answer(c):
    return [c.status, c.headers.get("retry-after")]
def page(path):                              # a request pool's page
    try:
        return "200 " + urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path)).read().decode().strip()
    except urllib.error.HTTPError as e:
        return str(e.code)
def count():
    return page("/c/counter")
out = {}
out["req"] = count()                         # its worker, idle, is the runner's one
a = up("/dep/pid.py")                        # no worker: the idle request worker goes
out["a"] = [a.status, echo(a, "a")]
out["req_capped"] = count()                  # a WebSocket worker holding a connection stays
out["a2"] = echo(a, "a2")
out["none"] = answer(up("/t/pid.py"))        # another pool: no worker may start
gen = pool(dep_script).get("generation")
os.rename(os.path.dirname(dep_script) + "/v2.py", dep_script)    # the deploy
out["rolled"] = until(lambda: pool(dep_script).get("generation") != gen)
res = {}
def waiter():
    res["b"] = answer(up("/dep/pid.py"))
t = threading.Thread(target=waiter)
t.start()
out["queued"] = until(lambda: pool(dep_script).get("queue") == 1)
out["queue"] = answer(up("/dep/pid.py"))    # one already waits
t.join()
out["wait"] = res.get("b")
out["dep"] = pool(dep_script).get("counters", {}).get("limited")
out["other"] = pool(other_script).get("counters", {}).get("limited")
out["metrics"] = get("metrics")
def hello():
    res["h"] = page("/c/hello")
t = threading.Thread(target=hello)
t.start()
out["req_waits"] = until(lambda: req_pool(hello_script).get("queue", {}).get("depth") == 1)
bye(a)                                       # the old worker goes: its slot to hello
t.join()
out["req_slot"] = res.get("h")
out["drained"] = until(lambda: not pool(dep_script).get("workers"))
d = up("/dep/pid.py")
out["after"] = [d.status, echo(d, "d")]
bye(d)                                       # its worker idles out (1 s)
out["idle"] = until(lambda: not pool(dep_script).get("workers"))
out["req_after"] = count()                   # room: its worker starts
e = up("/t/pid.py")                          # and goes again for this one
out["other_after"] = [e.status, echo(e, "e")]
bye(e)                                       # its worker now holds no connection
out["e_idle"] = until(lambda: [(w.get("connections"), w.get("opening"))
                               for w in pool(other_script).get("workers", [])] == [(0, 0)])
out["req_ws"] = count()                      # that WebSocket worker goes for it
e = up("/t/pid.py")                          # the request worker goes for this one
out["ws_again"] = [e.status, echo(e, "e2")]
t = threading.Thread(target=hello)
t.start()
out["req_waits2"] = until(lambda: req_pool(hello_script).get("queue", {}).get("depth") == 1)
bye(e)                                       # its worker, without connections, goes for hello
t.join()
out["req_slot2"] = res.get("h")
done(out)
PY
my $log = ws_log('ref');
my $counter = "$vars->{top_dir}/examples/c/counter";
my ($p1) = ($r->{req} // '') =~ /^200 count=1 pid=(\d+)$/;
ok t_cmp($p1 ? 1 : 0, 1, "a request pool's page first: its worker, idle, is the runner's one");

# an idle request worker makes room
ok t_cmp(($r->{a}[0] // 0) . ' ' . ($r->{a}[1] // ''), qr/^101 v1 \d+ a$/, 'the first pool takes the one worker');
ok t_cmp($log, qr/CGIPLUS2067: all 1 worker of the runner is taken; stopping idle worker pid \Q${\($p1 \/\/ 'none')}\E of \Q$counter\E for \Q$dep\E\/pid\.py\n/,
         '... after stopping the idle request worker for it (2067)');
ok t_cmp($log, qr/CGIPLUS2028: worker pid \Q${\($p1 \/\/ 'none')}\E of \Q$counter\E ended: evicted/,
         '... which ended as evicted (2028)');

# a WebSocket worker holding a connection is never stopped for a request pool
my ($a_pid) = ($r->{a}[1] // '') =~ /^v1 (\d+) a$/;
ok t_cmp($r->{req_capped} // '', '503', 'a request to that pool then: 503 after its CGIplusQueueWait');
ok t_cmp($log, qr/CGIPLUS2063: \Q$counter\E: 1 request waited \d+ ms for a worker; answered overloaded/,
         '... the runner says it waited (2063)');
ok t_cmp($r->{a2} // '', 'v1 ' . ($a_pid // 'none') . ' a2', '... and the connection is served by the same worker');

# no worker, none may start
ok t_cmp(($r->{none}[0] // 0) . ' ' . ($r->{none}[1] // ''), qr/^503 [1-9]\d*$/,
         'an upgrade to another pool at CGIplusMaxWorkersTotal 1: 503 with Retry-After');
ok t_cmp($log, qr/CGIPLUS2823: WebSocket upgrade \/t\/pid\.py from 127\.0\.0\.1 refused by max_workers_total/,
         '... the runner names max_workers_total (2823)');
ok t_cmp($r->{other}{no_worker} // -1, 1, '... the status page counts it (limited.no_worker)');

# CGIplusQueueDepth
ok t_cmp(($r->{rolled} ? 1 : 0) . ($r->{queued} ? 1 : 0), '11',
         'after the deploy an upgrade waits in the queue (the old worker drains, none may start)');
ok t_cmp(($r->{queue}[0] // 0) . ' ' . ($r->{queue}[1] // ''), qr/^503 [1-9]\d*$/,
         'CGIplusQueueDepth 1: the next one gets 503 with Retry-After at once');
ok t_cmp($log, qr/CGIPLUS2823: WebSocket upgrade \/dep\/pid\.py from 127\.0\.0\.1 refused by queue_depth/,
         '... the runner names queue_depth (2823)');

# CGIplusQueueWait
ok t_cmp(($r->{wait}[0] // 0) . ' ' . ($r->{wait}[1] // ''), qr/^503 [1-9]\d*$/,
         'CGIplusQueueWait 1s: the waiting one gets 503 with Retry-After');
ok t_cmp($log, qr/CGIPLUS2823: WebSocket upgrade \/dep\/pid\.py from 127\.0\.0\.1 refused by queue_wait/,
         '... the runner names queue_wait (2823)');
ok t_cmp(join(' ', map { "$_=" . ($r->{dep}{$_} // '-') } qw(queue wait no_worker)),
         'queue=1 wait=1 no_worker=0', 'the status page counts them (limited.queue, limited.wait)');
ok t_cmp(join(' ', map { $r->{metrics} =~ /^cgiplus_ws_limited_total\{script="\Q$_->[0]\E",limit="$_->[1]"\} 1$/m ? 1 : 0 }
              ["$dep/pid.py", 'queue'], ["$dep/pid.py", 'wait'],
              ["$vars->{documentroot}/ws/pid.py", 'no_worker']),
         '1 1 1', 'metrics: cgiplus_ws_limited_total for queue, wait and no_worker');

# the module's 503 lines (1061), in order, each with its cause
ok t_cmp(join(' ', map { m{\Q$counter\E: it waited CGIplusQueueWait in the runner's queue} ? 'request'
                       : /found no worker, and none may start/ ? 'no-worker'
                       : /found CGIplusQueueDepth upgrades waiting/ ? 'queue-depth'
                       : /waited CGIplusQueueWait and no worker was ready/ ? 'queue-wait' : "other($_)" }
              $log =~ /(CGIPLUS1061: .*)/g), 'request no-worker queue-depth queue-wait',
         "the module's 503 line (1061) names each cause");
ok t_cmp($log =~ /CGIPLUS1069/ ? 1 : 0, 0, '... none is logged as a crash loop (1069)');

# back to work
ok t_cmp($r->{drained} ? 1 : 0, 1, 'the old worker goes once its connection closes');
ok t_cmp(($r->{req_waits} ? 1 : 0) . ' ' . ($r->{req_slot} // ''), '1 200 Hello from CGIplus',
         '... and a request that waited for a slot meanwhile gets its slot');
ok t_cmp(($r->{after}[0] // 0) . ' ' . ($r->{after}[1] // ''), qr/^101 v2 \d+ d$/,
         '... then an upgrade to the deployed script is served, that worker stopped for it');
my ($p2) = ($r->{req_after} // '') =~ /^200 count=1 pid=(\d+)$/;
my ($p3) = ($r->{req_ws} // '') =~ /^200 count=1 pid=(\d+)$/; # after a WebSocket worker went (below)
ok t_cmp(($r->{idle} ? 1 : 0) . ' ' . ($p2 ? 1 : 0) . ' ' . (($p2 // 0) != ($p1 // 0) ? 1 : 0), '1 1 1',
         'once that worker idled out, the request pool is served again by a new worker');
ok t_cmp(($r->{other_after}[0] // 0) . ' ' . ($r->{other_after}[1] // ''),
         qr/^101 v0 \d+ e$/, '... then the other pool too');
ok t_cmp(join(' ', $log =~ /CGIPLUS2067: .* stopping idle worker pid (\d+) of \Q$counter\E for \Q$vars->{documentroot}\E\/ws\/pid\.py\n/g),
         ($p2 // 'none') . ' ' . ($p3 // 'none'),
         '... after stopping that request worker (2067; later the next one, below)');
my %short = ($counter => 'counter', "$vars->{top_dir}/examples/c/hello" => 'hello',
             "$dep/pid.py" => 'dep', "$vars->{documentroot}/ws/pid.py" => 't');
ok t_cmp(join(' ', map { join '>', map { $short{$_} // $_ } @$_ }
              map { [/stopping idle worker pid \d+ of (\S+) for (\S+)$/] } $log =~ /(CGIPLUS2067: .*)/g),
         'counter>dep hello>dep counter>t t>counter counter>t t>hello', 'the workers stopped for room, and for whom (2067)');

# a WebSocket worker without connections is stopped for a request pool's room
my ($e_pid) = ($r->{other_after}[1] // '') =~ /^v0 (\d+) e$/;
ok t_cmp(($r->{e_idle} ? 1 : 0) . ' ' . ($p3 ? 1 : 0) . ' ' . (($p3 // 0) != ($p2 // 0) ? 1 : 0), '1 1 1',
         "once the other pool's connection closed, a request to the request pool gets 200 from a new worker");
ok t_cmp($log, qr/CGIPLUS2067: all 1 worker of the runner is taken; stopping idle worker pid \Q${\($e_pid \/\/ 'none')}\E of \Q$vars->{documentroot}\E\/ws\/pid\.py for \Q$counter\E\n/,
         '... after stopping that WebSocket worker, idle, for it (2067)');
ok t_cmp($log, qr/CGIPLUS2820: WebSocket worker pid \Q${\($e_pid \/\/ 'none')}\E of \Q$vars->{documentroot}\E\/ws\/pid\.py ended: evicted \(.*\) with 0 connections open/,
         '... which ended as evicted with no connection open (2820)');
my ($e2_pid) = ($r->{ws_again}[1] // '') =~ /^v0 (\d+) e2$/;
ok t_cmp(($r->{req_waits2} ? 1 : 0) . ' ' . ($r->{req_slot2} // ''), '1 200 Hello from CGIplus',
         'a request waiting while a WebSocket worker holds a connection gets 200 once it closes');
ok t_cmp($log, qr/CGIPLUS2067: all 1 worker of the runner is taken; stopping idle worker pid \Q${\($e2_pid \/\/ 'none')}\E of \Q$vars->{documentroot}\E\/ws\/pid\.py for \Q$vars->{top_dir}\E\/examples\/c\/hello\n/,
         '... after stopping that WebSocket worker for it (2067)');
ws_stop('ref');
