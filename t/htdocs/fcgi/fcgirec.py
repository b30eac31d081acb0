"""fcgirec.py: FastCGI records and name-value pairs for the test
responders beside it (getvalues.py, halfclose.py, oneshot.py, raw.py),
which import it from their own directory (tests that copy one copy this
too)."""
import select
import struct


def record(t, rid, content=b''):
    """Records of type t for request rid, content cut at 65535 bytes."""
    out = b''
    while True:
        chunk, content = content[:65535], content[65535:]
        out += struct.pack('>BBHHBB', 1, t, rid, len(chunk), 0, 0) + chunk
        if not content:
            return out


class Conn:
    def __init__(self, sock):
        self.sock, self.buf = sock, b''

    def next(self, timeout=None):
        """A whole record (type, reqid, content); None if none came within
        timeout; EOFError when the server closed the connection."""
        while True:
            if len(self.buf) >= 8:
                _, t, rid, cl, pl, _ = struct.unpack('>BBHHBB', self.buf[:8])
                if len(self.buf) >= 8 + cl + pl:
                    content = self.buf[8:8 + cl]
                    self.buf = self.buf[8 + cl + pl:]
                    return t, rid, content
            if timeout is not None and not select.select([self.sock], [], [], timeout)[0]:
                return None
            data = self.sock.recv(65536)
            if not data:
                raise EOFError
            self.buf += data


def read_request(conn, other=None):
    """One request's records up to the end of PARAMS and STDIN: (reqid,
    params as a dict, body). other(t, rid, content), if given, sees every
    record of another type; EOFError if the server closes first."""
    params, body, done, reqid = b'', b'', 0, 1
    while done < 2:
        t, rid, content = conn.next()
        if t == 1:
            reqid = rid
        elif t == 4:
            params += content
            done += not content
        elif t == 5:
            body += content
            done += not content
        elif other:
            other(t, rid, content)
    return reqid, nv_decode(params), body


def nv(name, value):
    def ln(n):
        return bytes([n]) if n < 128 else struct.pack('>I', n | 0x80000000)
    return ln(len(name)) + ln(len(value)) + name + value


def nv_decode(data):
    i, out = 0, {}

    def ln():
        nonlocal i
        if data[i] < 128:
            i += 1
            return data[i - 1]
        i += 4
        return struct.unpack('>I', data[i - 4:i])[0] & 0x7fffffff
    while i < len(data):
        n = ln()
        v = ln()
        out[data[i:i + n]] = data[i + n:i + n + v]
        i += n + v
    return out
