"""wstest.py: WebSocket clients for the t/7x_ws_*.t tests. Debian's
python3-websockets is the independent client; Raw speaks RFC 6455 over a
bare socket to send what a real client never would (malformed frames);
H2 speaks RFC 8441 (extended CONNECT) over python3-h2. Each test's Python
part prints one JSON object as its last line (WsTest.pm reads it)."""
import asyncio
import json
import os
import socket
import ssl
import struct
import sys
import time

import websockets  # python3-websockets


def done(obj):
    print(json.dumps(obj))
    sys.stdout.flush()


def tls_ctx(alpn=None):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if alpn:
        ctx.set_alpn_protocols(alpn)
    return ctx


async def connect(url, **kw):
    if url.startswith("wss:"):
        kw.setdefault("ssl", tls_ctx())
    kw.setdefault("open_timeout", 30)
    kw.setdefault("max_size", None)
    return await websockets.connect(url, **kw)


def raise_nofile(n):
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(n, soft), hard), hard))


# ---------------------------------------------------------------- raw frames

MASK = b"\x12\x34\x56\x78"


def frame(op, data=b"", fin=True, rsv=0, mask=True, form=None):
    """One client frame: form forces the 16- or 64-bit length form."""
    n = len(data)
    out = bytes([(0x80 if fin else 0) | (rsv << 4) | op])
    mbit = 0x80 if mask else 0
    if form == 64 or (form is None and n > 0xffff):
        out += bytes([mbit | 127]) + struct.pack(">Q", n)
    elif form == 16 or (form is None and n >= 126):
        out += bytes([mbit | 126]) + struct.pack(">H", n)
    else:
        out += bytes([mbit | n])
    if mask:
        out += MASK + bytes(b ^ MASK[i & 3] for i, b in enumerate(data))
    else:
        out += data
    return out


class Raw:
    """A WebSocket client over a bare socket."""

    def __init__(self, host, port, path, headers=None, tls=False, version="13",
                 key="dGhlIHNhbXBsZSBub25jZQ==", method="GET", proto="HTTP/1.1", rcvbuf=None):
        s = socket.socket()
        if rcvbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.settimeout(15)
        s.connect((host, port))
        self.s = tls_ctx().wrap_socket(s) if tls else s
        h = {"Host": "%s:%d" % (host, port), "Upgrade": "websocket", "Connection": "Upgrade",
             "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": version}
        h.update(headers or {})
        req = "%s %s %s\r\n" % (method, path, proto)
        req += "".join("%s: %s\r\n" % (k, v) for k, v in h.items() if v is not None)
        self.s.sendall(req.encode() + b"\r\n")
        self.buf = b""
        head = self._until(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = {}
        for l in lines[1:]:
            k, _, v = l.partition(":")
            self.headers[k.strip().lower()] = v.strip()
        self.body = b""
        if self.status != 101 and self.headers.get("transfer-encoding") == "chunked":
            while True:
                n = int(self._until(b"\r\n").split(b";")[0], 16)
                self._need_buf(n + 2)
                self.body += self.buf[:n]
                self.buf = self.buf[n + 2:]
                if not n:
                    break
        elif self.status != 101:
            cl = int(self.headers.get("content-length", "0") or 0)
            self._need_buf(cl)
            self.body = self.buf[:cl]

    def _need_buf(self, n):
        while len(self.buf) < n:
            more = self.s.recv(65536)
            if not more:
                break
            self.buf += more

    def _until(self, mark):
        while mark not in self.buf:
            more = self.s.recv(65536)
            if not more:
                raise EOFError("closed before %r" % mark)
            self.buf += more
        i = self.buf.index(mark)
        out, self.buf = self.buf[:i], self.buf[i + len(mark):]
        return out

    def send(self, data):
        self.s.sendall(data)

    def _need(self, n, timeout):
        self.s.settimeout(timeout)
        while len(self.buf) < n:
            more = self.s.recv(65536)
            if not more:
                raise EOFError()
            self.buf += more

    def recv(self, timeout=10):
        """(fin, rsv, opcode, payload), None at end of stream, "timeout"."""
        try:
            self._need(2, timeout)
            b0, b1 = self.buf[0], self.buf[1]
            n, off = b1 & 0x7f, 2
            if n == 126:
                self._need(4, timeout)
                n, off = struct.unpack(">H", self.buf[2:4])[0], 4
            elif n == 127:
                self._need(10, timeout)
                n, off = struct.unpack(">Q", self.buf[2:10])[0], 10
            if b1 & 0x80:
                raise ValueError("the server masked a frame")
            self._need(off + n, timeout)
        except EOFError:
            return None
        except (socket.timeout, TimeoutError):
            return "timeout"
        except ConnectionResetError:
            return None
        out = (bool(b0 & 0x80), (b0 >> 4) & 7, b0 & 0x0f, self.buf[off:off + n])
        self.buf = self.buf[off + n:]
        return out

    def message(self, timeout=10):
        """A whole data message (op, bytes), answering nothing; control
        frames on the way are kept in self.controls."""
        self.controls = []
        op, data = None, b""
        while True:
            f = self.recv(timeout)
            if f is None or f == "timeout":
                return f
            fin, _, o, pl = f
            if o >= 8:
                self.controls.append((o, pl))
                if o == 8:
                    return ("close", pl)
                continue
            if op is None:
                op = o
            data += pl
            if fin:
                return (op, data)

    def count_until_close(self, timeout=10):
        """Reads data messages until the server's close frame or until none
        comes in timeout: (how many, the close code or None)."""
        n = 0
        while True:
            m = self.message(timeout)
            if m is None or m == "timeout":
                return n, None
            if m[0] == "close":
                return n, struct.unpack(">H", m[1][:2])[0]
            n += 1

    def close_code(self, timeout=10):
        """Reads until the server's close frame: its code (1005 for none),
        None if the connection ended without one."""
        while True:
            f = self.recv(timeout)
            if f is None or f == "timeout":
                return f
            if f[2] == 8:
                return struct.unpack(">H", f[3][:2])[0] if len(f[3]) >= 2 else 1005

    def eof(self, timeout=10):
        """True once the server closed the TCP connection."""
        while True:
            f = self.recv(timeout)
            if f is None:
                return True
            if f == "timeout":
                return False


# ---------------------------------------------------------------- HTTP/2

class H2:
    """One WebSocket over an HTTP/2 stream (RFC 8441), python3-h2."""

    def __init__(self, host, port, path, tls=True):
        import h2.config
        import h2.connection
        self.h2 = __import__("h2.events").events
        self.settings = __import__("h2.settings").settings
        raw = socket.create_connection((host, port), timeout=15)
        if tls:
            raw = tls_ctx(["h2"]).wrap_socket(raw, server_hostname="localhost")
            self.alpn = raw.selected_alpn_protocol()
        self.s = raw
        self.c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.c.initiate_connection()
        self.s.sendall(self.c.data_to_send())
        self.enabled, self.status, self.buf, self.ended = None, None, b"", False
        while self.enabled is None:
            self._pump()
        if not self.enabled:
            return
        self.sid = self.c.get_next_available_stream_id()
        self.c.send_headers(self.sid, [(":method", "CONNECT"), (":protocol", "websocket"),
                                       (":scheme", "https" if tls else "http"), (":path", path),
                                       (":authority", "localhost"),
                                       ("sec-websocket-version", "13")])
        self.s.sendall(self.c.data_to_send())
        while self.status is None and not self.ended:
            self._pump()

    def _pump(self):
        data = self.s.recv(65536)
        if not data:
            self.ended = True
            return
        for ev in self.c.receive_data(data):
            if isinstance(ev, self.h2.RemoteSettingsChanged) and self.enabled is None:
                cp = ev.changed_settings.get(self.settings.SettingCodes.ENABLE_CONNECT_PROTOCOL)
                self.enabled = bool(cp and cp.new_value)
            elif isinstance(ev, self.h2.ResponseReceived):
                self.status = int(dict(ev.headers)[b":status"])
            elif isinstance(ev, self.h2.DataReceived):
                self.buf += ev.data
                self.c.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            elif isinstance(ev, (self.h2.StreamEnded, self.h2.StreamReset)):
                self.ended = True
        self.s.sendall(self.c.data_to_send())

    def send(self, data):
        while data:
            room = min(self.c.local_flow_control_window(self.sid), self.c.max_outbound_frame_size)
            if room <= 0:
                self._pump()
                continue
            self.c.send_data(self.sid, data[:room])
            data = data[room:]
            self.s.sendall(self.c.data_to_send())

    def message(self):
        """A whole data message (op, bytes) or ("close", payload); None at the end."""
        op, data = None, b""
        while True:
            while len(self.buf) >= 2:
                b0, b1 = self.buf[0], self.buf[1]
                n, off = b1 & 0x7f, 2
                if n == 126:
                    if len(self.buf) < 4:
                        break
                    n, off = struct.unpack(">H", self.buf[2:4])[0], 4
                elif n == 127:
                    if len(self.buf) < 10:
                        break
                    n, off = struct.unpack(">Q", self.buf[2:10])[0], 10
                if len(self.buf) < off + n:
                    break
                pl, self.buf = self.buf[off:off + n], self.buf[off + n:]
                o = b0 & 0x0f
                if o == 8:
                    return ("close", pl)
                if o >= 8:
                    continue
                op = o if op is None else op
                data += pl
                if b0 & 0x80:
                    return (op, data)
            if self.ended:
                return None
            self._pump()
