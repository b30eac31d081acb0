#!/usr/bin/python3
"""getvalues.py: a FastCGI responder shaped like Debian 12's ruby-fcgi
(its pure-Ruby fcgi.rb, which Ruby 3.1 loads since the C extension does
not: "undefined symbol: rb_secure"), for t/59_fcgi_getvalues.t. It answers
the whole response at once, closes its connection after each request,
goes back to accept() when a write fails (the client left), and dies on
an FCGI_GET_VALUES that asks for any name: fcgi.rb 0.9.2 looks each name
up in its defaults, which are numbers, and calls .length on one
("undefined method `length' for 1:Integer (NoMethodError)"). An empty
GET_VALUES gets an empty GET_VALUES_RESULT, as there, and the connection
is read on. It dies too on a connection closed before a whole request
("must not happen: FCGI socket unexpected EOF"). mod_fcgid never sends
GET_VALUES and writes a request on every connection it makes. Started as
getvalues-go.py it behaves as Go's net/http/fcgi instead: it answers any
GET_VALUES with FCGI_MPXS_CONNS=1, then (a moment later) an empty
GET_VALUES_RESULT that ends the stream, and lives through a connection
closed before a request (it notes in the file marks next to itself, if
writable, when the empty record is out). QUERY_STRING: size=N answers N bytes of body; n=TOKEN
is echoed with the pid; hold=FILE sends the rest after the first record
only once FILE exists (at most 60 s)."""
import os
import signal
import socket
import struct
import sys
import time
from urllib.parse import parse_qs
from fcgirec import Conn, nv_decode, read_request, record  # beside this file

signal.signal(signal.SIGPIPE, signal.SIG_IGN)
go = sys.argv[0].endswith('-go.py')


def rec(t, content=b'', reqid=1):
    return record(t, reqid, content)


def serve(sock):
    def management(t, rid, content):
        if t == 9 and go:
            sock.sendall(rec(10, b'\x0f\x01FCGI_MPXS_CONNS1', 0))
            time.sleep(0.2)
            try:
                sock.sendall(rec(10, b'', 0))
            finally:  # for the test to wait on: the last record is out (or refused)
                try:
                    with open(os.path.join(os.path.dirname(sys.argv[0]), 'marks'), 'a') as f:
                        f.write('late %d\n' % os.getpid())
                except OSError:
                    pass
        elif t == 9:  # GET_VALUES
            if content:
                sys.stderr.write("getvalues.py: undefined method `length' for 1:Integer "
                                 "(NoMethodError), as fcgi.rb on GET_VALUES naming %s\n"
                                 % b','.join(nv_decode(content)).decode())
                sys.stderr.flush()
                os._exit(1)
            sock.sendall(rec(10, b'', 0))
    try:
        reqid, env, _ = read_request(Conn(sock), management)
    except EOFError:
        if go:
            return
        # fcgi.rb raises, and the process ends
        sys.stderr.write('getvalues.py: must not happen: FCGI socket unexpected EOF '
                         '(RuntimeError), as fcgi.rb\n')
        sys.stderr.flush()
        os._exit(1)
    q = parse_qs(env.get(b'QUERY_STRING', b'').decode())
    size = int(q.get('size', ['0'])[0])
    out = b'Content-Type: text/plain\r\n\r\nn=%s pid=%d\n' % (q.get('n', [''])[0].encode(), os.getpid())
    out += b'x' * size
    hold = q.get('hold', [''])[0]
    for i in range(0, len(out), 65535):
        sock.sendall(rec(6, out[i:i + 65535], reqid))
        for _ in range(600 if hold and not i else 0):  # the rest once FILE exists
            if os.path.exists(hold):
                break
            time.sleep(0.1)
    sock.sendall(rec(6, b'', reqid) + rec(3, struct.pack('>IB3x', 0, 0), reqid))


listener = socket.socket(fileno=0)
while True:
    sock, _ = listener.accept()
    try:
        serve(sock)
    except OSError:
        pass  # the client left: fcgi.rb closes and accepts again
    sock.close()
