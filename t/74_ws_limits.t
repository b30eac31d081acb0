# Limits against abuse of WebSocket scripts, each refusal logged with an id:
# connections per pool (503, 2823), per client address (429, 2823), the
# client's message rate (1008, 1806), a client that does not read (a
# bounded send queue: 1008, 1011 or messages dropped, as
# CGIplusWebSocketOverflow says), and the runner's memory for WebSocket buffers (it stops reading
# clients and refuses upgrades past CGIplusWebSocketMemory, 503 + 2823),
# a worker that takes no message for Timeout (the client's connection is
# closed, 1811).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use lib 't/lib', 't/htdocs/pool/lib';
use WsTest qw(ws_start ws_stop ws_py ws_py_start ws_py_wait ws_log ws_status);
use PrivHttpd qw(ASAN_MEASURE);

plan tests => 25, need { 'python3-websockets' =>
                         !system("$WsTest::PYTHON -c 'import websockets' 2>/dev/null") };

# The httpd children's RSS is bounded below: under the sanitizers, without
# ASan's quarantine (see PrivHttpd), so that it counts what they hold.
local $ENV{ASAN_OPTIONS} = ASAN_MEASURE;
my ($port) = ws_start(name => 'lim', extra => <<'CONF');
CGIplusWebSocketMemory 1M
AliasMatch ^/(pool|addr|rate|q|q11|drop|mem)/(.*)$ @DOCROOT@/ws/$2
<Location /pool/>
    CGIplusWebSocketMaxConnections 3
</Location>
<Location /addr/>
    CGIplusWebSocketMaxPerAddress 2
</Location>
<Location /rate/>
    CGIplusWebSocketMaxRate 5
</Location>
<Location /q/>
    CGIplusWebSocketSendQueue 64K
</Location>
<Location /q11/>
    CGIplusWebSocketSendQueue 64K
    CGIplusWebSocketOverflow 1011
</Location>
<Location /drop/>
    CGIplusWebSocketSendQueue 64K
    CGIplusWebSocketOverflow drop
</Location>
<Location /mem/>
    CGIplusMaxWorkers 1
</Location>
CONF
ok t_cmp($port ? 1 : 0, 1, 'private httpd started');

my $r = ws_py(<<'PY', $port);
import sys
port = int(sys.argv[1])
out = {}
held = [Raw("127.0.0.1", port, "/pool/pid.py") for _ in range(3)]
c = Raw("127.0.0.1", port, "/pool/pid.py")
out["pool"] = [[h.status for h in held], c.status, c.headers.get("retry-after")]
for h in held:
    h.send(frame(8, b"\x03\xe8")); h.close_code()
held = [Raw("127.0.0.1", port, "/addr/pid.py") for _ in range(2)]
c = Raw("127.0.0.1", port, "/addr/pid.py")
out["addr"] = [[h.status for h in held], c.status]
held[0].send(frame(8, b"\x03\xe8")); held[0].close_code(); held[0].eof()
import time; time.sleep(0.5)
d = Raw("127.0.0.1", port, "/addr/pid.py")
out["addr_after"] = d.status
done(out)
PY
ok t_cmp(join(' ', @{ $r->{pool}[0] // [] }), '101 101 101', 'CGIplusWebSocketMaxConnections 3: three accepted');
ok t_cmp($r->{pool}[1] // 0, 503, '... the fourth gets 503');
ok t_cmp($r->{pool}[2] // '', qr/^\d+$/, '... with Retry-After');
ok t_cmp(join(' ', @{ $r->{addr}[0] // [] }) . " $r->{addr}[1]", '101 101 429',
         'CGIplusWebSocketMaxPerAddress 2: the third from one address gets 429');
ok t_cmp($r->{addr_after} // 0, 101, '... one closed, one more may come');
my $log = ws_log('lim');
ok t_cmp($log, qr/CGIPLUS2823: WebSocket upgrade \/pool\/pid\.py from 127\.0\.0\.1 refused by the pool's connection limit/,
         'the pool limit logged (2823)');
ok t_cmp($log, qr/CGIPLUS2823: WebSocket upgrade \/addr\/pid\.py from 127\.0\.0\.1 refused by the limit of connections per client address/,
         'the address limit logged (2823)');
# The module's 503 line says the cause, not a full queue (it said "its
# queue is full" for every refusal).
ok t_cmp(join(' ', map { /queue is full/ ? 'queue-full' : /connection limit \(CGIplusWebSocketMaxConnections\)/ ? 'conn-limit' : 'other' }
              $log =~ /(CGIPLUS1061: .*)/g), 'conn-limit',
         "the module's 503 line (1061) names the pool's connection limit");

# The message rate: a burst past 5 a second.
$r = ws_py(<<'PY', $port);
import sys
c = Raw("127.0.0.1", int(sys.argv[1]), "/rate/pid.py")
for i in range(30):
    c.send(frame(1, b"m%d" % i))
n, code = c.count_until_close(10)
done({"echoed": n, "code": code})
PY
ok t_cmp($r->{code} // 0, 1008, "CGIplusWebSocketMaxRate 5: a burst of 30 gets 1008 (after $r->{echoed} echoes)");
ok t_cmp(ws_log('lim'), qr/CGIPLUS1806: closing WebSocket \d+ of \S+pid\.py \(client 127\.0\.0\.1\) with 1008: message rate/,
         '... logged (1806)');

# A client that does not read: 2000 messages of 16 KiB for it.
my $flood = <<'PY';
import sys, time
c = Raw("127.0.0.1", int(sys.argv[1]), sys.argv[2], rcvbuf=4096)
c.send(frame(1, b"flood 2000 16384"))
time.sleep(4)                 # reads nothing meanwhile
n, code = c.count_until_close(5)
alive = None
if code is None:
    c.send(frame(1, b"still there"))
    while True:
        m = c.message(10)
        if m is None or m == "timeout" or m[0] == "close":
            break
        if m[1].endswith(b"still there"):
            alive = True
            break
done({"got": n, "code": code, "alive": alive})
PY
# the three pools' floods at once (each waits 4 s unread)
my @floods = map { ws_py_start($flood, $port, "/$_/pid.py") } qw(q q11 drop);
$r = ws_py_wait($floods[0]);
ok t_cmp($r->{code} // 0, 1008, "a full send queue (64K): 1008 after $r->{got} of 2000 messages");
ok t_cmp(($r->{got} // 2000) < 2000 ? 1 : 0, 1, '... not all of them were kept');
# whichever queue fills first says it: the httpd child's (1806) or the
# runner's, for a child that cannot take more (2825)
ok t_cmp(ws_log('lim'), qr/CGIPLUS1806: .* with 1008: send queue full|CGIPLUS2825: WebSocket connection \d+ of \S+pid\.py: \d+ bytes wait for the module \(ws_queue 65536\); closing it with 1008/,
         '... logged (1806 or 2825)');
$r = ws_py_wait($floods[1]);
ok t_cmp($r->{code} // 0, 1011, "CGIplusWebSocketOverflow 1011: 1011 after $r->{got} of 2000 messages");
$r = ws_py_wait($floods[2]);
ok t_cmp(($r->{got} // 2000) < 2000 && !defined $r->{code} ? 1 : 0, 1,
         "CGIplusWebSocketOverflow drop: $r->{got} of 2000 arrive, the rest dropped");
ok t_cmp($r->{alive} ? 1 : 0, 1, '... and the connection goes on');
ok t_cmp(ws_log('lim'), qr/CGIPLUS1808: WebSocket \d+ of \S+pid\.py: client 127\.0\.0\.1 does not read; a message is dropped \(CGIplusWebSocketOverflow drop\)/,
         '... each drop logged (1808, debug)');

# A client that pings and does not read: its pongs stop at the send queue
# (64K) instead of growing the httpd child by 2 bytes a ping.
$r = ws_py(<<'PY', $port, WsTest::ws_dir('lim') . '/httpd.pid');
import sys, time
def children_rss():
    # per child: one the MPM starts meanwhile (its idle-thread upkeep, not
    # these pings) would count its whole RSS as growth
    parent = open(sys.argv[2]).read().strip()
    kb = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            st = open("/proc/%s/stat" % d).read()
            if st[st.rindex(")") + 2:].split()[1] == parent:
                kb[d] = int([l for l in open("/proc/%s/status" % d) if l.startswith("VmRSS:")][0].split()[1])
        except (OSError, IndexError):
            pass
    return kb
before = children_rss()
c = Raw("127.0.0.1", int(sys.argv[1]), "/q/pid.py", rcvbuf=4096)
batch = frame(9, b"") * 100000
for _ in range(50):            # 5 million pings, 30 MB, nothing read
    c.s.settimeout(60)
    c.s.sendall(batch)
time.sleep(3)                  # the child has parsed them all by now
after = children_rss()
done({"grew": sum(after[d] - before[d] for d in before if d in after)})
PY
ok t_cmp(($r->{grew} // 1e9) < 4000 ? 1 : 0, 1,
         "5 million unread pings grew the httpd children by $r->{grew} KiB (unanswered past the queue)");

# The runner's memory (1M): a worker that sleeps while its client sends
# 4 MB; meanwhile upgrades are refused.
$r = ws_py(<<'PY', $port);
import sys, time
port = int(sys.argv[1])
c = Raw("127.0.0.1", port, "/mem/pid.py")
c.send(frame(1, b"sleep 4"))
for i in range(64):
    try:
        c.s.settimeout(0.2)
        c.s.sendall(frame(2, b"x" * 65536))
    except OSError:
        break          # TCP holds it back: the runner stopped reading
time.sleep(1)
d = Raw("127.0.0.1", port, "/mem/pid.py")
done({"refused": d.status})
PY
ok t_cmp($r->{refused} // 0, 503, 'past CGIplusWebSocketMemory an upgrade gets 503');
$log = ws_log('lim');
ok t_cmp(($log =~ /CGIPLUS2824: WebSocket buffers at ws_memory/ ? 1 : 0) .
         ($log =~ /CGIPLUS2823: WebSocket upgrade \/mem\/pid\.py .*refused by ws_memory/ ? 1 : 0), '11',
         'the runner said so (2824) and logged the refusal (2823)');
ok t_cmp(join(' ', map { /queue is full/ ? 'queue-full' : /CGIplusWebSocketMaxConnections/ ? 'conn-limit' : /buffers full \(CGIplusWebSocketMemory\)/ ? 'ws-memory' : 'other' }
              $log =~ /(CGIPLUS1061: .*)/g), 'conn-limit ws-memory',
         "the module's 503 line (1061) names ws_memory");
ws_stop('lim');

# A worker that takes none of its client's messages for Timeout (2 s here:
# its own httpd): the runner stops reading the connection, the module's
# thread waits for it at most Timeout, then closes the client's connection
# (1811); the worker, asleep meanwhile, serves the next connection.
my ($sport) = ws_start(name => 'stall', timeout => 2);
$r = ws_py(<<'PY', $sport);
import sys, time
port = int(sys.argv[1])
c = Raw("127.0.0.1", port, "/t/pid.py")
c.send(frame(1, b"sleep 5"))
blocked = False
for i in range(256):
    try:
        c.s.settimeout(0.5)
        c.s.sendall(frame(2, b"x" * 65536))
    except OSError:
        blocked = True  # TCP holds it back: nobody reads
        break
closed = c.eof(20)
time.sleep(4)           # the worker wakes from its sleep
d = Raw("127.0.0.1", port, "/t/pid.py")
d.send(frame(1, b"again"))
m = d.message(15)
done({"blocked": blocked, "closed": closed, "next": m[1].decode() if isinstance(m, tuple) else str(m)})
PY
ok t_cmp(($r->{blocked} ? 'blocked' : 'not blocked') . ' ' . ($r->{closed} ? 'closed' : 'open'), 'blocked closed',
         'a client whose messages nobody takes: held back, then its connection is closed');
ok t_cmp(ws_log('stall'), qr/CGIPLUS1811: WebSocket \d+ of \S+\/pid\.py: the worker took none of the client's messages for Timeout; closing it/,
         'logged (1811)');
ok t_cmp($r->{next} // '', qr/^v0 \d+ again$/, 'and the worker serves the next connection');
ws_stop('stall');
