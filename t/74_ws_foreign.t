# A WebSocket worker writes only to its own open connections: a hostile
# worker (t/htdocs/ws/foreign.py) that sends to, closes, accepts and
# refuses every connection id from 1 to 400 but its own (ids are small
# consecutive numbers, easily guessed), and sends to its own connections
# after they closed, reaches neither the connections of another pool
# (another script, pid.py) nor the connections that came after its closed
# ones (the next connection of its pool and of the other); its broadcast
# stays in its pool. The victims' connections stay open and answered, the
# attacker's own works on.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use lib 't/lib';
use WsTest qw(ws_start ws_stop ws_py ws_log);

plan tests => 10, need { 'python3-websockets' =>
                        !system("$WsTest::PYTHON -c 'import websockets' 2>/dev/null") };

my ($port) = ws_start(name => 'foreign', extra => <<'CONF');
Alias /one/ @DOCROOT@/ws/
<Location /one/>
    CGIplusMaxWorkers 1
</Location>
CONF
ok t_cmp($port ? 1 : 0, 1, 'private httpd started');

my $r = ws_py(<<'PY', $port);
import sys
port = int(sys.argv[1])
base = "ws://127.0.0.1:%d/t/" % port

async def quiet(ws, secs):
    try:
        return await asyncio.wait_for(ws.recv(), secs)
    except asyncio.TimeoutError:
        return None

async def main():
    out = {}
    victim = await connect(base + "pid.py")
    await victim.send("one")
    out["victim_first"] = (await asyncio.wait_for(victim.recv(), 10)).split()[2]
    a1 = await connect(base + "foreign.py")
    await a1.send("id")
    out["a1_id"] = int(await asyncio.wait_for(a1.recv(), 10))
    await a1.close()
    # after the attacker's connection closed: another of its pool and one
    # of the victim's pool
    a2 = await connect(base + "foreign.py")
    victim2 = await connect(base + "pid.py")
    await victim2.send("two")
    out["victim2_first"] = (await asyncio.wait_for(victim2.recv(), 10)).split()[2]
    await a2.send("gone LEAKED-AFTER-CLOSE")
    out["gone"] = await asyncio.wait_for(a2.recv(), 10)
    await a2.send("spray 1 400 FOREIGN")
    out["spray"] = await asyncio.wait_for(a2.recv(), 30)
    # nothing for the victims within 2 s; then they are still served
    out["victim_got"] = await quiet(victim, 2)
    out["victim2_got"] = await quiet(victim2, 0.5)
    await victim.send("still")
    out["victim_after"] = (await asyncio.wait_for(victim.recv(), 10)).split()[2]
    await victim2.send("still2")
    out["victim2_after"] = (await asyncio.wait_for(victim2.recv(), 10)).split()[2]
    await a2.send("id")
    out["a2_own"] = await asyncio.wait_for(a2.recv(), 10)
    out["a2_extra"] = await quiet(a2, 0.5)
    for w in (victim, victim2, a2):
        await w.close()
    return out

done(asyncio.run(main()))
PY
ok t_cmp("$r->{victim_first} $r->{victim2_first}", 'one two', 'the victim pool answers two connections');
ok t_cmp($r->{gone}, 'sent to 1', 'the attacker wrote to its closed connection');
ok t_cmp("$r->{spray} " . ($r->{a1_id} < 390 ? 'in range' : "id $r->{a1_id}"), 'sprayed in range',
         'the attacker sent, closed, accepted and refused ids 1 to 400 but its own (the ids around its own), and broadcast');
ok t_cmp(($r->{victim_got} // 'nothing') . ' | ' . ($r->{victim2_got} // 'nothing'), 'nothing | nothing',
         'another pool\'s connections, one older and one newer than the closed one: nothing of it, nor its broadcast');
ok t_cmp("$r->{victim_after} $r->{victim2_after}", 'still still2', 'and both are still open and answered');
ok t_cmp(($r->{a2_own} // '') =~ /^\d+$/ && $r->{a2_own} != $r->{a1_id} ? 'own' : "$r->{a2_own}",
         'own', "the attacker's own open connection works on, under a new id (no id reused)");

# A worker that writes what is no record on its channel: stopped, its
# connections (both: one worker) get 1011, the next upgrade meets a new
# worker.
$r = ws_py(<<'PY', $port);
import sys
base = "ws://127.0.0.1:%s/one/foreign.py" % sys.argv[1]
async def main():
    out = {}
    a = await connect(base)
    b = await connect(base)
    await a.send("garble")
    for name, c in (("a", a), ("b", b)):
        try:
            await asyncio.wait_for(c.recv(), 10)
        except websockets.ConnectionClosed as e:
            out[name] = e.code
    n = await connect(base)
    await n.send("id")
    out["next"] = await asyncio.wait_for(n.recv(), 10)
    await n.close()
    return out
done(asyncio.run(main()))
PY
ok t_cmp(($r->{a} // 0) . ' ' . ($r->{b} // 0), '1011 1011', 'a worker that garbles its channel: its connections get 1011');
ok t_cmp(ws_log('foreign'), qr/CGIPLUS2810: WebSocket worker pid \d+ of \S+\/foreign\.py broke the protocol \(\? record, connection \d+, \d+ bytes: [^)]+\); stopping it/,
         '... the runner says so (2810)');
ok t_cmp($r->{next} // '', qr/^\d+$/, '... and the next upgrade is served');
ws_stop('foreign');
