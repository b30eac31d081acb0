# WebSocket upgrades refused because no worker can take them: each gets
# 503 with Retry-After, the runner's line (2823) and the module's (1061)
# name the cause, the status page counts it, and the pool serves again
# once a worker can start. The runner may hold one worker
# (CGIplusMaxWorkersTotal 1): an upgrade to a second pool finds no worker
# and none may start; after a deploy the first pool's only worker drains
# its connection and no new one may start, so one upgrade waits
# (CGIplusQueueDepth 1), the next finds the queue full, and the waiting
# one gets 503 after CGIplusQueueWait.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use lib 't/lib';
use WsTest qw(ws_start ws_stop ws_py ws_log ws_dir);

plan tests => 17, need { 'python3-websockets' =>
                         !system("$WsTest::PYTHON -c 'import websockets' 2>/dev/null") };

my $vars = Apache::Test::config()->{vars};
my $dep = ws_dir('ref') . '-deploy';
# pid.py with its tag and library path in the file; $as: its name in $dep
sub copy_pid {
    my ($tag, $as) = @_;
    open my $in, '<', "$vars->{documentroot}/ws/pid.py" or die $!;
    local $/;
    my $src = <$in>;
    $src =~ s/^tag = .*$/tag = "$tag"/m or die 'no tag line';
    $src =~ s{^LIB = .*$}{LIB = "$vars->{top_dir}/lib/python"}m or die 'no LIB line';
    open my $out, '>', "$dep/new.py" or die $!;
    print $out $src;
    close $out;
    chmod 0755, "$dep/new.py";
    rename "$dep/new.py", "$dep/$as" or die $!;
}
mkdir $dep;
chmod 0755, $dep;
copy_pid('v1', 'pid.py');
copy_pid('v2', 'v2.py');

my ($port) = ws_start(name => 'ref', extra => <<"CONF");
CGIplusMaxWorkersTotal 1
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

my $r = ws_py(<<'PY', $port, "$dep/pid.py", "$vars->{documentroot}/ws/pid.py");
import sys, threading, urllib.request
port, dep_script, other_script = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def get(q):
    return urllib.request.urlopen("http://127.0.0.1:%d/cgiplus-status?%s" % (port, q)).read().decode()
def pool(script):
    for p in json.loads(get("json"))["websocket"]["pools"]:
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
out = {}
a = up("/dep/pid.py")                        # the runner's one worker
out["a"] = [a.status, echo(a, "a")]
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
bye(a)                                       # the old worker goes
out["drained"] = until(lambda: not pool(dep_script).get("workers"))
d = up("/dep/pid.py")
out["after"] = [d.status, echo(d, "d")]
bye(d)                                       # its worker idles out (1 s)
out["idle"] = until(lambda: not pool(dep_script).get("workers"))
e = up("/t/pid.py")
out["other_after"] = [e.status, echo(e, "e")]
bye(e)
done(out)
PY
ok t_cmp(($r->{a}[0] // 0) . ' ' . ($r->{a}[1] // ''), qr/^101 v1 \d+ a$/, 'the first pool takes the one worker');
my $log = ws_log('ref');

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
ok t_cmp(join(' ', map { /found no worker, and none may start/ ? 'no-worker'
                       : /found CGIplusQueueDepth upgrades waiting/ ? 'queue-depth'
                       : /waited CGIplusQueueWait and no worker was ready/ ? 'queue-wait' : "other($_)" }
              $log =~ /(CGIPLUS1061: .*)/g), 'no-worker queue-depth queue-wait',
         "the module's 503 line (1061) names each cause");
ok t_cmp($log =~ /CGIPLUS1069/ ? 1 : 0, 0, '... none is logged as a crash loop (1069)');

# back to work
ok t_cmp($r->{drained} ? 1 : 0, 1, 'the old worker goes once its connection closes');
ok t_cmp(($r->{after}[0] // 0) . ' ' . ($r->{after}[1] // ''), qr/^101 v2 \d+ d$/,
         '... then an upgrade to the deployed script is served');
ok t_cmp(($r->{idle} ? 1 : 0) . ' ' . ($r->{other_after}[0] // 0) . ' ' . ($r->{other_after}[1] // ''),
         qr/^1 101 v0 \d+ e$/, 'once that worker idled out, the other pool is served too');
ws_stop('ref');
