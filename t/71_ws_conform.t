# RFC 6455 conformance of the frame handling, through the real server
# (httpd with the module, the runner, the C echo worker) with a raw-socket
# client that sends what libraries never would: fragmentation, control
# frames between fragments, invalid UTF-8 (also split across fragments),
# oversized, reserved-bit, unmasked and reserved-opcode frames, bad close
# frames, length encodings, frames a byte per write, every close code
# class (the kinds of Autobahn|Testsuite's cases 1 to 7, which needs
# Python 2 and is not in Debian 12); each case with the behaviour RFC 6455 requires
# (the close code the server sends, and that it then ends the TCP
# connection). The worker hears one CLOSED per connection either way.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use JSON::PP ();
use lib 't/lib';
use WsTest qw(ws_start ws_stop ws_py ws_log ws_dir);

my @cases = (
    # name, frames (op, payload, fin, rsv, mask, form), expected
    [ 'three text fragments', 'echo', [[1, 'Hel', 0], [0, 'lo, ', 0], [0, 'world', 1]], 'text:Hello, world' ],
    [ 'ping between fragments: pong first, message whole', 'echo',
      [[1, 'ab', 0], [9, 'p1', 1], [0, 'cd', 1]], 'pong:p1 text:abcd' ],
    [ 'an unasked pong between fragments is ignored', 'echo', [[2, 'x', 0], [10, 'u', 1], [0, 'y', 1]],
      'binary:2' ],
    [ 'UTF-8 split across fragments', 'echo', [[1, "\xe2", 0], [0, "\x82\xac", 1]], "text:\xe2\x82\xac" ],
    [ 'empty fragments make an empty message', 'echo', [[1, '', 0], [0, '', 0], [0, '', 1]], 'text:' ],
    [ 'every byte value, binary', 'echo', [[2, join('', map { chr } 0 .. 255), 1]], 'binary:256' ],
    [ '125 bytes (7-bit length)', 'echo', [[1, 'a' x 125, 1]], 'text:125' ],
    [ '126 bytes (16-bit length)', 'echo', [[1, 'a' x 126, 1]], 'text:126' ],
    [ '65535 bytes', 'echo', [[1, 'a' x 65535, 1]], 'text:65535' ],
    [ '65536 bytes (64-bit length)', 'echo', [[1, 'a' x 65536, 1]], 'text:65536' ],
    [ 'ping of 125 bytes: pong with its payload', 'echo', [[9, 'P' x 125, 1], [1, 'z', 1]],
      'pong:125 text:z' ],
    [ 'a close with a code: the same code back, then TCP ends', 'echo',
      [[8, "\x0b\xb8bye", 1]], 'close:3000 eof' ],
    [ 'a close without a code: an empty close back', 'echo', [[8, '', 1]], 'close:1005 eof' ],
    [ 'invalid UTF-8 in one frame', 'error', [[1, "a\xffb", 1]], 'close:1007 eof' ],
    [ 'invalid UTF-8 across fragments', 'error', [[1, "\xf0\x9f", 0], [0, 'A', 1]], 'close:1007 eof' ],
    [ 'text ending inside a sequence', 'error', [[1, "\xe2\x82", 1]], 'close:1007 eof' ],
    [ 'an overlong form', 'error', [[1, "\xc0\xaf", 1]], 'close:1007 eof' ],
    [ 'a surrogate', 'error', [[1, "\xed\xa0\x80", 1]], 'close:1007 eof' ],
    [ 'a close reason not UTF-8', 'error', [[8, "\x03\xe8\xff", 1]], 'close:1007 eof' ],
    [ 'RSV1 set', 'error', [[1, 'x', 1, 4]], 'close:1002 eof' ],
    [ 'RSV3 set', 'error', [[2, 'x', 1, 1]], 'close:1002 eof' ],
    [ 'an unmasked frame', 'error', [[1, 'x', 1, 0, 0]], 'close:1002 eof' ],
    [ 'opcode 3', 'error', [[3, 'x', 1]], 'close:1002 eof' ],
    [ 'opcode 11', 'error', [[11, '', 1]], 'close:1002 eof' ],
    [ 'a ping of 126 bytes', 'error', [[9, 'P' x 126, 1]], 'close:1002 eof' ],
    [ 'a fragmented ping', 'error', [[9, 'p', 0]], 'close:1002 eof' ],
    [ 'a continuation with no message', 'error', [[0, 'x', 1]], 'close:1002 eof' ],
    [ 'a new message while one is open', 'error', [[1, 'a', 0], [1, 'b', 1]], 'close:1002 eof' ],
    [ 'a close of one byte', 'error', [[8, "\x03", 1]], 'close:1002 eof' ],
    [ 'close code 1005', 'error', [[8, "\x03\xed", 1]], 'close:1002 eof' ],
    [ 'close code 999', 'error', [[8, "\x03\xe7", 1]], 'close:1002 eof' ],
    [ 'close code 2000', 'error', [[8, "\x07\xd0", 1]], 'close:1002 eof' ],
    [ 'close code 5000', 'error', [[8, "\x13\x88", 1]], 'close:1002 eof' ],
    [ 'a 16-bit length for 5 bytes (not minimal)', 'error', [[1, 'abcde', 1, 0, 1, 16]], 'close:1002 eof' ],
    [ 'a message over CGIplusWebSocketMaxMessage (1000)', 'small', [[1, 'a' x 1001, 1]], 'close:1009 eof' ],
    [ '1000 bytes fit', 'small', [[1, 'a' x 1000, 1]], 'text:1000' ],
    [ 'fragments adding up past it', 'small', [[2, 'a' x 600, 0], [0, 'b' x 401, 1]], 'close:1009 eof' ],
    # Autobahn|Testsuite's other cases of the same kinds (its 1.x-7.x):
    # frames a byte per write, more pings, the close handshake's edges,
    # every close code class, UTF-8 at its limits.
    [ 'a frame sent a byte per write', 'echo', [[1, 'Hello, world', 1, 0, 1, 'chop']], 'text:Hello, world' ],
    [ 'fragments and a ping, each a byte per write', 'echo',
      [[1, 'ab', 0, 0, 1, 'chop'], [9, 'p1', 1, 0, 1, 'chop'], [0, 'cd', 1, 0, 1, 'chop']], 'pong:p1 text:abcd' ],
    [ 'ten pings: ten pongs, in order', 'echo', [ (map { [9, "p$_", 1] } 0 .. 9), [1, 'z', 1] ],
      join(' ', (map { "pong:p$_" } 0 .. 9), 'text:z') ],
    [ 'an empty ping', 'echo', [[9, '', 1], [1, 'z', 1]], 'pong: text:z' ],
    [ 'an unasked pong is ignored', 'echo', [[10, 'u', 1], [1, 'z', 1]], 'text:z' ],
    (map { my $c = $_; [ "close code $c: the same back", 'echo', [[8, pack('n', $c) . 'r', 1]], "close:$c eof" ] }
         1001, 1003, 1007, 1008, 1009, 1010, 1011, 3999, 4000, 4999),
    (map { my $c = $_; [ "close code $c: refused", 'error', [[8, pack('n', $c), 1]], 'close:1002 eof' ] }
         0, 1004, 1006, 1015, 1016, 1100, 2999),
    [ 'a close with a reason of 123 bytes (125 in all)', 'echo', [[8, pack('n', 1001) . 'r' x 123, 1]],
      'close:1001 eof' ],
    [ 'a close of 126 bytes', 'error', [[8, pack('n', 1001) . 'r' x 124, 1]], 'close:1002 eof' ],
    [ 'a fragmented close', 'error', [[8, pack('n', 1001), 0]], 'close:1002 eof' ],
    [ 'nothing after the client\'s close is answered', 'echo',
      [[8, pack('n', 1001), 1], [1, 'late', 1], [9, 'p', 1], [8, pack('n', 1001), 1]], 'close:1001 eof' ],
    [ 'RSV2 set', 'error', [[1, 'x', 1, 2]], 'close:1002 eof' ],
    [ 'opcode 7', 'error', [[7, 'x', 1]], 'close:1002 eof' ],
    [ 'opcode 15', 'error', [[15, '', 1]], 'close:1002 eof' ],
    [ 'UTF-8 of 2, 3 and 4 bytes', 'echo', [[1, "\xce\xba\xe1\xbd\xb9\xf0\x90\x80\x80", 1]],
      "text:\xce\xba\xe1\xbd\xb9\xf0\x90\x80\x80" ],
    [ 'U+10FFFF, the last code point', 'echo', [[1, "\xf4\x8f\xbf\xbf", 1]], "text:\xf4\x8f\xbf\xbf" ],
    [ 'past U+10FFFF', 'error', [[1, "\xf4\x90\x80\x80", 1]], 'close:1007 eof' ],
    [ 'a lone continuation byte', 'error', [[1, "a\x80", 1]], 'close:1007 eof' ],
    [ 'byte 0xfe', 'error', [[1, "\xfe", 1]], 'close:1007 eof' ],
    [ 'invalid UTF-8 in a first fragment, the rest valid', 'error',
      [[1, "\xce\xba\xe1\xbd\xb9\xed\xa0\x80", 0], [0, 'edited', 1]], 'close:1007 eof' ],
);

plan tests => 6 + @cases, need { 'python3-websockets' =>
                                 !system("$WsTest::PYTHON -c 'import websockets' 2>/dev/null") };

my ($port) = ws_start(name => 'conform', extra => <<'CONF');
Alias /small/ @TOP@/examples/c/
<Location /small/>
    CGIplusWebSocketMaxMessage 1000
</Location>
Alias /big/ @TOP@/examples/c/
<Location /big/>
    CGIplusWebSocketMaxMessage 16M
</Location>
CONF
ok t_cmp($port ? 1 : 0, 1, 'private httpd started');

my $driver = <<'PY';
import json, struct, sys, time
port = int(sys.argv[1])
cases = json.loads(sys.stdin.read())
out = []
for name, path, frames in cases:
    c = Raw("127.0.0.1", port, path)
    if c.status != 101:
        out.append("status:%d" % c.status)
        continue
    try:
        for f in frames:
            op, data, fin = f[0], f[1].encode("latin-1"), f[2]
            rsv = f[3] if len(f) > 3 else 0
            mask = bool(f[4]) if len(f) > 4 else True
            form = f[5] if len(f) > 5 else None
            if form == "chop":   # a byte per write, as Autobahn's "octet-wise chops"
                for b in frame(op, data, fin=bool(fin), rsv=rsv, mask=mask):
                    c.send(bytes([b]))
                    time.sleep(0.001)
            else:
                c.send(frame(op, data, fin=bool(fin), rsv=rsv, mask=mask, form=form))
    except OSError:
        pass   # the server ended the connection first: what it sent is read below
    got = []
    while True:
        fr = c.recv(10)
        if fr is None:
            got.append("eof")
            break
        if fr == "timeout":
            got.append("timeout")
            break
        fin_, rsv_, op_, pl = fr
        if op_ == 8:
            got.append("close:%d" % (struct.unpack(">H", pl[:2])[0] if len(pl) >= 2 else 1005))
            continue
        if op_ == 10:
            got.append("pong:" + (pl.decode() if len(pl) < 10 else str(len(pl))))
            continue
        # a data message, perhaps in fragments
        data = pl
        while not fin_:
            fin_, _, _, more = c.recv(10)
            data += more
        kind = "text" if op_ == 1 else "binary"
        got.append(kind + ":" + (data.decode("latin-1") if len(data) < 64 and op_ == 1 else str(len(data))))
        if "close" not in [g[:5] for g in got]:
            c.send(frame(8, b"\x03\xe8"))   # our close: the server answers and ends it
            continue
    out.append(" ".join(g for g in got if not g.startswith("close:1000")))
done({"results": out})
PY
my $input = JSON::PP->new->latin1->encode([ map {
    [ $_->[0], $_->[1] eq 'small' ? '/small/ws_echo' : '/c/ws_echo', $_->[2] ] } @cases ]);
my $cases = ws_dir('conform') . '/cases.json';
open my $in, '>', $cases or die "$cases: $!";
print $in $input;
close $in;
my $r = ws_py("import sys\nsys.stdin = open(sys.argv[2], encoding='latin-1')\n$driver", $port, $cases);
my @res = @{ $r->{results} // [] };
for my $i (0 .. $#cases) {
    my $want = $cases[$i][3];
    $want =~ s/ eof$/ eof/;
    # a data answer is followed by our close (1000, left out) and the end
    $want .= ' eof' if $want !~ /eof/;
    ok t_cmp($res[$i] // 'none', $want, $cases[$i][0]);
}

# A frame sent in the same write as the handshake (in httpd's input filters
# already when the handler ends: no readable socket announces it).
$r = ws_py(<<'PY', $port);
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /c/ws_echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" +
          frame(1, b"right behind"))
s.settimeout(10)
data = b""
try:
    while b"right behind" not in data:
        more = s.recv(65536)
        if not more:
            break
        data += more
except OSError:
    pass
s.sendall(frame(8, b"\x03\xe8"))
done({"echo": b"right behind" in data})
PY
ok t_cmp($r->{echo} ? 1 : 0, 1, 'a frame in the same write as the handshake is echoed');

# Control frames while a large message goes out (the worker's echo comes
# from the runner in many reads): each pong, and our close, is a frame of
# its own between whole data frames (RFC 6455 5.4), never inside one's
# payload; after our close no data frame follows (5.5.1).
$r = ws_py(<<'PY', $port);
import sys
port = int(sys.argv[1])
n = 8 * 1024 * 1024
msg = bytes(range(256)) * (n // 256)
out = {}
c = Raw("127.0.0.1", port, "/big/ws_echo")
c.send(frame(2, msg))
first = c.recv(20)
for i in range(5):
    c.send(frame(9, b"ping%d" % i))
data, pongs, bad, fin = first[3], [], [], first[0]
while not fin:
    fr = c.recv(20)
    if fr is None or fr == "timeout":
        bad.append(str(fr))
        break
    if fr[2] == 10:
        pongs.append(fr[3].decode("latin-1"))
    elif fr[2] == 0:
        data += fr[3]
        fin = fr[0]
    else:
        bad.append("op%d" % fr[2])
        break
# a pong may also come after the last data frame (queued behind it on a
# busy machine): wait for all five
while not bad and len(pongs) < 5:
    fr = c.recv(20)
    if fr is None or fr == "timeout" or fr[2] != 10:
        bad.append(str(fr) if fr is None or fr == "timeout" else "op%d" % fr[2])
        break
    pongs.append(fr[3].decode("latin-1"))
out["echo"] = data == msg
out["pongs"] = " ".join(pongs)
out["bad"] = " ".join(bad)
# the client's close after the first frame of another large echo: the
# next control frame is the close, and no data frame comes after it
c.send(frame(2, msg))
c.recv(20)
c.send(frame(8, b"\x03\xe8"))
seq = []
while True:
    fr = c.recv(20)
    if fr is None or fr == "timeout":
        seq.append("eof" if fr is None else "timeout")
        break
    seq.append("close:%d" % int.from_bytes(fr[3][:2], "big") if fr[2] == 8 else "data" if fr[2] in (0, 2) else "op%d" % fr[2])
while len(seq) > 1 and seq[0] == "data":
    seq.pop(0)
out["after_close"] = " ".join(seq)
done(out)
PY
ok t_cmp(join('|', $r->{echo} ? 'echo whole' : 'echo broken', $r->{pongs} // '', $r->{bad} // ''),
         'echo whole|ping0 ping1 ping2 ping3 ping4|',
         'pings during an 8 MiB echo: five whole pongs, between or after whole data frames, the message intact');
ok t_cmp($r->{after_close} // '', 'close:1000 eof',
         'a close during one: our close as a whole frame, no data frame after it, then the end');

# Every connection ended with one CLOSED at the worker: the runner's
# counters say as many closed as accepted, and nothing is left open.
sleep 1;
ok t_cmp(WsTest::ws_counts($port), (@cases + 2) . ' ' . (@cases + 2) . ' 0',
         'the runner: every connection accepted, each closed once, none left');
my @proto = ws_log('conform') =~ /CGIPLUS1806: .*/g;
ok t_cmp(scalar(@proto) >= 20 ? 1 : 0, 1, 'each failed connection logged its reason (1806, info)');
ws_stop('conform');
