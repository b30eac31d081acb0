#!/usr/bin/python3
"""flood_fcgi.py (t/47_security_fcgi.t): a FastCGI responder that floods
whoever reads its connection, per QUERY_STRING:
  stderr=N  N MiB of STDERR records of 65535 bytes, no newline in them
  mgmt=N    N MiB of GET_VALUES_RESULT and UNKNOWN_TYPE records (id 0)
then answers "done <pid>". Whoever reads (an httpd child, or the runner)
must log the STDERR in bounded lines and keep none of it, nor of the
management records."""
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fcgi'))
from fcgirec import nv_decode  # noqa: E402 (t/htdocs/fcgi/fcgirec.py)

HDR = struct.Struct('>BBHHBB')


def rec(t, rid, data):
    pad = (8 - len(data) % 8) % 8
    return HDR.pack(1, t, rid, len(data), pad, 0) + data + b'\0' * pad


def read_exact(c, n):
    b = b''
    while len(b) < n:
        d = c.recv(n - len(b))
        if not d:
            raise EOFError
        b += d
    return b


lsock = socket.socket(fileno=0)
while True:
    c, _ = lsock.accept()
    try:
        while True:
            rid, pbuf, keep = None, b'', False
            while True:
                _, t, r, clen, plen, _ = HDR.unpack(read_exact(c, 8))
                body = read_exact(c, clen + plen)[:clen]
                if t == 1:
                    rid, keep = r, bool(body[2] & 1)
                elif t == 4:
                    pbuf += body
                elif t == 5 and clen == 0:
                    break
            q = dict(kv.split('=', 1) for kv in nv_decode(pbuf).get(b'QUERY_STRING', b'').decode().split('&') if '=' in kv)
            chunk = b'x' * 65535
            for _ in range(int(q.get('stderr', 0)) * 16):
                c.sendall(rec(7, rid, chunk))
            gvr = rec(10, 0, b'\x0e\x01FCGI_MAX_CONNS1')
            unk = rec(11, 0, b'\x63' + b'\0' * 7)
            big = rec(10, 0, b'y' * 65535)
            for _ in range(int(q.get('mgmt', 0)) * 16):
                c.sendall(big + gvr + unk)
            out = b'Content-Type: text/plain\r\n\r\ndone %d\n' % os.getpid()
            c.sendall(rec(6, rid, out) + rec(6, rid, b'') + rec(7, rid, b'') +
                      rec(3, rid, struct.pack('>IB3x', 0, 0)))
            if not keep:
                break
    except (EOFError, OSError):
        pass
    c.close()
