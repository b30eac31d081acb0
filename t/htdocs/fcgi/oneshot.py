#!/usr/bin/python3
"""oneshot.py: a FastCGI responder that closes its connection after every
request whatever FCGI_KEEP_CONN says, as Mojo::Server::FastCGI and many
small hand-written responders do (the specification lets an application
close when the flag is clear; naive ones always close), then accepts the
next (t/59_fcgi_oneshot.t). QUERY_STRING: delay=MS waits that long after
END_REQUEST before it closes (0: at once), so a server that writes the next
request on the same connection meets both orders; n=TOKEN is echoed. Each
request it serves is one line in the file FCGI_LEDGER names: its pid and
the request's QUERY_STRING."""
import os
import socket
import struct
import time
from urllib.parse import parse_qs
from fcgirec import nv_decode  # beside this file

ledger = os.environ.get('FCGI_LEDGER')


# Every record says request id 1, whatever it was asked (as nginx and
# mod_fcgid always ask 1): hand-written responders often do.
def rec(t, content=b''):
    return struct.pack('>BBHHBB', 1, t, 1, len(content), 0, 0) + content


def serve(sock):
    buf, params, body, done = b'', b'', b'', 0
    while done < 2:  # PARAMS and STDIN ended
        while len(buf) < 8 or len(buf) < 8 + struct.unpack('>H', buf[4:6])[0] + buf[6]:
            data = sock.recv(65536)
            if not data:
                return  # closed by the server: no request
            buf += data
        _, t, _, cl, pl, _ = struct.unpack('>BBHHBB', buf[:8])
        content, buf = buf[8:8 + cl], buf[8 + cl + pl:]
        if t == 4:
            params += content
            done += not content
        elif t == 5:
            body += content
            done += not content
    env = nv_decode(params)
    query = env.get(b'QUERY_STRING', b'').decode()
    q = parse_qs(query)
    if ledger:
        with open(ledger, 'a') as f:
            f.write('%d %s\n' % (os.getpid(), query))
    sock.sendall(rec(6, b'Content-Type: text/plain\r\n\r\nn=%s pid=%d body=%d\n'
                     % (q.get('n', [''])[0].encode(), os.getpid(), len(body)))
                 + rec(6) + rec(3, struct.pack('>IB3x', 0, 0)))
    delay = int(q.get('delay', ['0'])[0])
    if delay:
        time.sleep(delay / 1000.0)


listener = socket.socket(fileno=0)
while True:
    sock, _ = listener.accept()
    try:
        serve(sock)
    except OSError:
        pass
    sock.close()
