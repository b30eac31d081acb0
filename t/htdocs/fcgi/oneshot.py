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
from fcgirec import Conn, read_request, record  # beside this file

ledger = os.environ.get('FCGI_LEDGER')


# Every record says request id 1, whatever it was asked (as nginx and
# mod_fcgid always ask 1): hand-written responders often do.
def rec(t, content=b''):
    return record(t, 1, content)


def serve(sock):
    try:
        _, env, body = read_request(Conn(sock))
    except EOFError:
        return  # closed by the server: no request
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
