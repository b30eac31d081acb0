#!/usr/bin/python3
"""halfclose.py: a FastCGI responder that ends its side of the connection
after every request (shutdown(SHUT_WR), as node-fastcgi's socket.end()
does when its response is over) but reads on, each connection in a thread
of its own, as node does: a request written on that connection after the
end is read and run, and its answer goes nowhere (t/59_fcgi_halfclose.t).
QUERY_STRING delay=MS: the end comes that long after END_REQUEST, so the
next request is written before it.
Each request it runs is one line in the file FCGI_LEDGER names: its pid
and the request's QUERY_STRING."""
import os
import socket
import struct
import threading
import time
from urllib.parse import parse_qs
from fcgirec import Conn, read_request, record  # beside this file

ledger = os.environ.get('FCGI_LEDGER')
lock = threading.Lock()


def conn(sock):
    c = Conn(sock)
    try:
        while True:
            rid, env, body = read_request(c)
            query = env.get(b'QUERY_STRING', b'').decode()
            if ledger:
                with lock, open(ledger, 'a') as f:
                    f.write('%d %s\n' % (os.getpid(), query))
            sock.sendall(record(6, rid, b'Content-Type: text/plain\r\n\r\n%s pid=%d body=%d\n'
                                % (query.encode(), os.getpid(), len(body)))
                         + record(6, rid) + record(3, rid, struct.pack('>IB3x', 0, 0)))
            delay = int(parse_qs(query).get('delay', ['0'])[0])
            if delay:
                time.sleep(delay / 1000.0)
            sock.shutdown(socket.SHUT_WR)
    except (OSError, EOFError):
        pass
    finally:
        sock.close()


listener = socket.socket(fileno=0)
while True:
    s, _ = listener.accept()
    threading.Thread(target=conn, args=(s,), daemon=True).start()
