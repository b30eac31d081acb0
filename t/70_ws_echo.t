# WebSocket scripts, the upgrade and echo (docs/DESIGN.md, "WebSocket
# scripts"): the echo examples in C, Python and Perl through a private httpd
# (event MPM) with real clients: Debian's python3-websockets over HTTP/1.1
# and TLS, RFC 8441 over HTTP/2 with python3-h2, a bare socket for what a
# library never sends. The worker sees the upgrade's CGI variables on each
# of them; the chat examples broadcast. A worker's refusal reaches the
# client as its response; an upgrade to a plain CGIplus script is answered 501 (logged);
# bad handshakes 400 / 426; a plain GET to a WebSocket script 426.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use lib 't/lib';
use WsTest qw(ws_start ws_stop ws_py ws_log);

plan tests => 47, need { 'python3-websockets' =>
                         !system("$WsTest::PYTHON -c 'import websockets, h2' 2>/dev/null"),
                         't/src/fcgi_app (make builds it where libfcgi-dev is installed)' => -x 't/src/fcgi_app' };

my ($port, $tport) = ws_start(name => 'echo', extra => <<'CONF');
Alias /off/ @DOCROOT@/ws/
<Location /off/>
    CGIplusWebSocket off
</Location>
Alias /fcgi/ @TOP@/t/src/
<Directory @TOP@/t/src>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusMode fastcgi
</Directory>
CONF
ok t_cmp($port ? 1 : 0, 1, 'private httpd started');

my $echo = <<'PY';
import sys
async def main(url):
    ws = await connect(url)
    got = []
    for m in ["hello", b"\x00\x01\xfe\xffbinary", "\u00e9t\u00e9 \U0001f600", "x" * 70000, "", b""]:
        await ws.send(m)
        r = await asyncio.wait_for(ws.recv(), 10)
        got.append(type(r) is type(m) and r == m)
    await ws.close()
    return {"same": got, "code": ws.close_code}
done(asyncio.run(main(sys.argv[1])))
PY
for my $u ('c/ws_echo', 'py/ws_echo.py', 'pl/ws_echo.pl') {
    my $r = ws_py($echo, "ws://127.0.0.1:$port/$u");
    ok t_cmp(join(',', map { $_ ? 1 : 0 } @{ $r->{same} // [] }), '1,1,1,1,1,1',
             "$u: text, binary, UTF-8, 70000 bytes (fragmented back), empty text and binary echo");
    ok t_cmp($r->{code}, 1000, "$u: closed cleanly (1000)");
}

my $r = ws_py($echo, "wss://127.0.0.1:$tport/py/ws_echo.py");
ok t_cmp(join(',', map { $_ ? 1 : 0 } @{ $r->{same} // [] }), '1,1,1,1,1,1', 'TLS: the same echo');

# RFC 8441 over HTTP/2 (TLS, ALPN h2): 200, then the stream carries frames.
$r = ws_py(<<'PY', $tport);
import sys
c = H2("127.0.0.1", int(sys.argv[1]), "/c/ws_echo")
out = {"alpn": c.alpn, "enabled": c.enabled, "status": c.status}
c.send(frame(1, b"over h2"))
out["small"] = c.message() == (1, b"over h2")
big = bytes(range(256)) * 400
c.send(frame(2, big))
out["big"] = c.message() == (2, big)
c.send(frame(8, b"\x03\xe8"))
m = c.message()
out["close"] = m[0] == "close" and m[1][:2] == b"\x03\xe8"
done(out)
PY
ok t_cmp("$r->{alpn} $r->{enabled} $r->{status}", 'h2 1 200',
         'HTTP/2: the server allows extended CONNECT; the upgrade is answered 200');
ok t_cmp(($r->{small} ? 1 : 0) . ($r->{big} ? 1 : 0), '11', 'HTTP/2: text and a 102400-byte binary echo');
ok t_cmp($r->{close} ? 1 : 0, 1, 'HTTP/2: the close handshake (1000 back)');

# Subprotocols: the worker picks one the client offered, or none.
$r = ws_py(<<'PY', $port);
import sys
async def main(port):
    a = await connect("ws://127.0.0.1:%s/c/ws_chat?name=ann" % port, subprotocols=["x-other", "chat"])
    b = await connect("ws://127.0.0.1:%s/c/ws_chat?name=bo" % port, subprotocols=["x-other"])
    out = {"a": a.subprotocol, "b": b.subprotocol}
    await a.close(); await b.close()
    return out
done(asyncio.run(main(sys.argv[1])))
PY
ok t_cmp($r->{a} // 'none', 'chat', 'the worker chose "chat" of the two offered');
ok t_cmp($r->{b} // 'none', 'none', 'none chosen when "chat" was not offered');
$r = ws_py(<<'PY', $port);
import sys
c = Raw("127.0.0.1", int(sys.argv[1]), "/t/refuse.py?proto=xyz", {"Sec-WebSocket-Protocol": "abc"})
done({"status": c.status})
PY
ok t_cmp($r->{status}, 502, 'a subprotocol the client did not offer: 502');

# A refusal is any response of the worker's.
$r = ws_py(<<'PY', $port);
import sys
c = Raw("127.0.0.1", int(sys.argv[1]), "/t/refuse.py?deny")
done({"status": c.status, "why": c.headers.get("x-why"), "body": c.body.decode(),
      "type": c.headers.get("content-type")})
PY
ok t_cmp("$r->{status} $r->{why}", '403 denied here', 'refused: the worker\'s status and header');
ok t_cmp($r->{body}, "go away\n", 'refused: its body');
# What the runner would refuse (a bad status, header or close code) fails
# in the library, sending nothing: the worker lives on and answers.
for my $u ('/t/refuse.py', '/t/refuse.pl') {
    $r = ws_py(<<'PY', $port, $u);
import sys
c = Raw("127.0.0.1", int(sys.argv[1]), sys.argv[2] + "?bad")
done({"status": c.status, "n": c.headers.get("x-invalid"), "body": c.body.decode()})
PY
    ok t_cmp("$r->{status} $r->{n} $r->{body}", "400 6 checked\n",
             "$u: six invalid refuse/close calls fail in the library; the worker then refuses 400");
}
$r = ws_py(<<'PY', $port);
import sys
async def main(port):
    ws = await connect("ws://127.0.0.1:%s/t/refuse.py" % port)
    await ws.send("after a refusal"); r = await ws.recv(); await ws.close()
    return {"r": r}
done(asyncio.run(main(sys.argv[1])))
PY
ok t_cmp($r->{r}, 'after a refusal', 'the same worker accepts the next one');

# The worker sees the CGI variables of the upgrade request, over HTTP/1.1,
# TLS and HTTP/2 (whose extended CONNECT httpd presents as GET + Upgrade).
$r = ws_py(<<'PY', $port, $tport);
import sys
port, tport = int(sys.argv[1]), int(sys.argv[2])
names = ["REQUEST_METHOD", "SCRIPT_NAME", "PATH_INFO", "QUERY_STRING", "REMOTE_ADDR",
         "SERVER_PROTOCOL", "HTTPS", "HTTP_ORIGIN", "HTTP_UPGRADE", "GATEWAY_INTERFACE"]
out = {}
for kind in ("h1", "tls", "h2"):
    path = "/t/pid.py/more?x=1&y=2"
    if kind == "h2":
        c = H2("127.0.0.1", tport, path)
    else:
        c = Raw("127.0.0.1", tport if kind == "tls" else port, path,
                {"Origin": "http://example.test"}, tls=kind == "tls")
    vals = []
    for n in names:
        c.send(frame(1, ("env " + n).encode()))
        m = c.message()
        vals.append(m[1].decode() if isinstance(m, tuple) else str(m))
    out[kind] = " ".join(vals)
done(out)
PY
ok t_cmp($r->{h1} // '', 'GET /t/pid.py /more x=1&y=2 127.0.0.1 HTTP/1.1 (unset) http://example.test websocket CGI/1.1',
         'HTTP/1.1: the upgrade request\'s CGI variables');
ok t_cmp($r->{tls} // '', 'GET /t/pid.py /more x=1&y=2 127.0.0.1 HTTP/1.1 on http://example.test websocket CGI/1.1',
         'TLS: the same, HTTPS on');
ok t_cmp($r->{h2} // '', 'GET /t/pid.py /more x=1&y=2 127.0.0.1 HTTP/2.0 on (unset) websocket CGI/1.1',
         'HTTP/2: the same, SERVER_PROTOCOL HTTP/2.0');

# The chat examples: joins, a message and a leave reach every member.
for my $u ('c/ws_chat', 'py/ws_chat.py', 'pl/ws_chat.pl') {
    $r = ws_py(<<'PY', $port, $u);
import sys
async def main(port, u):
    url = "ws://127.0.0.1:%s/%s?name=" % (port, u)
    a = await connect(url + "ann")
    got_a = [await asyncio.wait_for(a.recv(), 10)]
    b = await connect(url + "bo")
    got_b = [await asyncio.wait_for(b.recv(), 10)]
    got_a.append(await asyncio.wait_for(a.recv(), 10))
    await b.send("hi all")
    got_a.append(await asyncio.wait_for(a.recv(), 10))
    got_b.append(await asyncio.wait_for(b.recv(), 10))
    await b.close()
    got_a.append(await asyncio.wait_for(a.recv(), 10))
    await a.close()
    return {"a": "|".join(got_a), "b": "|".join(got_b)}
done(asyncio.run(main(*sys.argv[1:])))
PY
    ok t_cmp($r->{a} // '', '* ann joined|* bo joined|bo: hi all|* bo left',
             "$u: a member hears the joins, the message and the leave");
    ok t_cmp($r->{b} // '', '* bo joined|bo: hi all', "$u: the sender hears its own message");
}

# A plain CGIplus script does not speak WebSocket: 501, said in the log.
my $plain = <<'PY';
import sys
c = Raw("127.0.0.1", int(sys.argv[1]), "/py/echo.py")
done({"status": c.status, "body": c.body.decode("latin-1")})
PY
$r = ws_py($plain, $port);
ok t_cmp($r->{status}, 501, 'an upgrade to a plain CGIplus script: 501');
ok t_cmp($r->{body}, qr/does not speak WebSocket/, '... saying why');
ok t_cmp(ws_log('echo'), qr/CGIPLUS2819: \S+examples\/python\/echo\.py does not speak WebSocket/,
         '... and the runner logged it (2819)');
$r = ws_py($plain, $port);
ok t_cmp($r->{status}, 501, 'the next one too, at once (until the file changes)');
$r = ws_py(<<'PY', $port);
import sys, urllib.request
r = urllib.request.urlopen("http://127.0.0.1:%s/py/echo.py" % sys.argv[1], data=b"still")
done({"body": r.read().decode()})
PY
ok t_cmp($r->{body}, 'still', 'its plain requests are served as ever');

# Handshakes RFC 6455 refuses.
my $bad = <<'PY';
import sys, json
kw = json.loads(sys.argv[2])
c = Raw("127.0.0.1", int(sys.argv[1]), "/c/ws_echo", **kw)
done({"status": c.status, "version": c.headers.get("sec-websocket-version"),
      "upgrade": c.headers.get("upgrade")})
PY
$r = ws_py($bad, $port, '{"version": "12"}');
ok t_cmp("$r->{status} " . ($r->{version} // '') . ' ' . ($r->{upgrade} // ''), '426 13 websocket',
         'version 12: 426 with Sec-WebSocket-Version: 13 and Upgrade: websocket (RFC 9110 15.5.22)');
$r = ws_py($bad, $port, '{"method": "HEAD"}');
ok t_cmp($r->{status}, 400, 'HEAD: 400 (RFC 6455 4.1 wants GET; httpd takes HEAD for a GET)');
$r = ws_py($bad, $port, '{"key": "dGhlIHNhbXBsZSBub25jZR=="}');
ok t_cmp($r->{status}, 400, 'a key that is not 16 bytes: 400');
$r = ws_py($bad, $port, '{"key": null}');
ok t_cmp($r->{status}, 400, 'no key: 400');
$r = ws_py($bad, $port, '{"method": "POST", "headers": {"Content-Length": "0"}}');
ok t_cmp($r->{status}, 400, 'POST: 400');
$r = ws_py($bad, $port, '{"proto": "HTTP/1.0"}');
ok t_cmp($r->{status}, 400, 'HTTP/1.0: 400');
$r = ws_py($bad, $port, '{"headers": {"Connection": "keep-alive"}}');
ok t_cmp($r->{status}, 400, 'Connection without Upgrade: 400');
ok t_cmp(join(' ', ws_log('echo') =~ /CGIPLUS1805: WebSocket handshake for \S+\/ws_echo refused \((\d+)\): /g),
         '426 400 400 400 400 400 400', 'each refusal logged with its status (1805)');
# the way of a good upgrade, each step with its id: the runner's new pool,
# its worker started and ready, the module's accepted connection
ok t_cmp(ws_log('echo') =~ m{CGIPLUS2800: new WebSocket pool #\d+ for (\S+/ws_echo) .*\n(?s:.*)CGIPLUS2807: started WebSocket worker pid (\d+) for \1 .*\n(?s:.*)CGIPLUS2811: WebSocket worker pid \2 of \1 said HELLO.*\n(?s:.*)CGIPLUS1804: WebSocket \d+ to \1 accepted by worker pid \2} ? 1 : 0, 1,
         'an upgrade logged step by step (2800, 2807, 2811, 1804)');

# A plain GET to a WebSocket script, and an upgrade where WebSockets are off:
# ordinary requests, which the library answers 426.
$r = ws_py(<<'PY', $port);
import sys, urllib.request, urllib.error
out = {}
for u in ("/py/ws_echo.py", "/c/ws_echo", "/pl/ws_echo.pl"):
    try:
        urllib.request.urlopen("http://127.0.0.1:%s%s" % (sys.argv[1], u))
    except urllib.error.HTTPError as e:
        out[u] = [e.code, e.headers.get("Upgrade")]
c = Raw("127.0.0.1", int(sys.argv[1]), "/off/refuse.py")
out["off"] = c.status
done(out)
PY
ok t_cmp(join(' ', map { "@{ $r->{$_} // [] }" } '/py/ws_echo.py', '/c/ws_echo', '/pl/ws_echo.pl'),
         '426 websocket 426 websocket 426 websocket',
         'a plain GET to a WebSocket script: 426 Upgrade: websocket (each library)');
ok t_cmp($r->{off}, 426, 'CGIplusWebSocket off: the upgrade is an ordinary request');

# A FastCGI worker (CGIplusMode fastcgi) speaks no WebSocket: an upgrade to
# it is an ordinary request, which the application answers.
{
    $r = ws_py(<<'PY', $port);
import sys
c = Raw("127.0.0.1", int(sys.argv[1]), "/fcgi/fcgi_app")
done({"status": c.status, "body": c.body.decode("latin-1")})
PY
    ok t_cmp("$r->{status} " . ($r->{body} =~ /^pid=\d+$/m ? 'app' : $r->{body}), '200 app',
             'an upgrade in a CGIplusMode fastcgi scope: the FastCGI application\'s answer');
}

my $log = ws_log('echo');
my @errors = $log =~ /^.*\[cgiplus(?:-runner)?:(?:error|crit)\].*$/mg;
@errors = grep { !/CGIPLUS(2819|1802)/ } @errors;
print "# $_\n" for @errors;
ok t_cmp(scalar(@errors), 0, 'no other errors logged');
ok t_cmp($log, qr/CGIPLUS1802: .*refuse\.py \(worker pid \d+\) accepted the WebSocket with subprotocol 'xyz'/,
         'the unoffered subprotocol was logged (1802)');
ws_stop('echo');
