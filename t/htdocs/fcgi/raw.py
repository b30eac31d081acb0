#!/usr/bin/python3
"""raw.py: a FastCGI responder written from the specification, without a
library, for what libraries do not let a test see or do
(t/59_fcgi_workers.t). One line per request goes to the file FCGI_LEDGER
names (its pool's CGIplusSetEnv): its pid, its request count and the
record types it received. QUERY_STRING says what it answers:
  (none)      its pid and request count
  overloaded  END_REQUEST with FCGI_OVERLOADED and no output
  role        END_REQUEST with FCGI_UNKNOWN_ROLE and no output
  slow        its header, then a line every 100 ms for up to 10 s, watching
              for ABORT_REQUEST (then it ends the request at once)
  quiet       writes nothing for up to 10 s, watching for ABORT_REQUEST
              (a timeout's), deaf to SIGTERM meanwhile: the stop that
              follows the abort cannot hide it from the ledger
  close       closes the connection before END_REQUEST, and goes on
              accepting (it does not exit)
  late        answers, then 200 ms later writes a second whole response
              (from a thread, with no request), as a buggy application
              might
  trailing    answers, and in the same write a second whole response
              after its END_REQUEST
  unknown     writes a management record FCGI_UNKNOWN_TYPE (naming type
              42) that nothing asked for, then answers as with none
  early       answers and ends the request once its PARAMS are in, its
              STDIN unread (a responder that takes no body)
  noabort     its header with Script-Control: no-abort once its PARAMS
              are in; then, while t/logs/gate-noabort is there (at most
              15 s), it reads nothing more; then, its STDIN read, the
              body's length and its pid (t/52_spool_read_error.t)
  gate=NAME   once its PARAMS are in, writes its pid into t/logs/gate-NAME
              (the test made it) and reads nothing more until the test
              removes it (at most 15 s); then as noabort, without the
              header (t/52_body_write_error.t)
It keeps the connection after an aborted request, unlike php-cgi and
libfcgi."""
import os
import signal
import socket
import struct
import threading
import time
from fcgirec import Conn, nv, nv_decode, record  # beside this file

NAMES = {1: 'BEGIN', 2: 'ABORT', 4: 'PARAMS', 5: 'STDIN', 9: 'GET_VALUES'}
ledger = os.environ.get('FCGI_LEDGER')
count = 0


LOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'logs')
GATE = os.path.join(LOGS, 'gate-noabort')
RID = [1]  # the request in hand's id (its BEGIN_REQUEST's)


def rec(t, content=b'', rid=None):
    return record(t, RID[0] if rid is None else rid, content)


def hold(gate):
    """Reads nothing while gate is there (at most 15 s)."""
    for _ in range(750):
        if not os.path.exists(gate):
            break
        time.sleep(0.02)


def serve(conn):
    """One request; False once the connection is to be closed."""
    global count
    types, params, keep, stdin_done, params_done = [], b'', False, False, False
    body_len = 0
    while not (params_done and stdin_done):
        t, rid, c = conn.next()
        types.append(NAMES.get(t, str(t)))
        if t == 9:  # management: what it is
            conn.sock.sendall(rec(10, nv(b'FCGI_MAX_CONNS', b'1') + nv(b'FCGI_MAX_REQS', b'1')
                                  + nv(b'FCGI_MPXS_CONNS', b'0'), 0))
        elif t == 1:
            keep = bool(c[2] & 1)
            RID[0] = rid
        elif t == 4:
            params += c
            params_done = not c
            if params_done and nv_decode(params).get(b'QUERY_STRING') == b'early':
                break
            if params_done and nv_decode(params).get(b'QUERY_STRING') == b'noabort':
                conn.sock.sendall(rec(6, b'Content-Type: text/plain\r\n'
                                      b'Script-Control: no-abort\r\n\r\n'))
                hold(GATE)
            name = nv_decode(params).get(b'QUERY_STRING', b'') if params_done else b''
            if name.startswith(b'gate=') and name[5:].isalnum():
                gate = os.path.join(LOGS, 'gate-' + name[5:].decode())
                try:
                    with open(gate, 'r+') as f:
                        f.write('%d\n' % os.getpid())
                    hold(gate)
                except FileNotFoundError:
                    pass
        elif t == 5:
            stdin_done = not c
            body_len += len(c)
        elif t == 2:
            stdin_done = params_done = True
    count += 1
    env = nv_decode(params)
    query = env.get(b'QUERY_STRING', b'')
    status = 0
    if query == b'overloaded':
        status = 2
    elif query == b'role':
        status = 3
    elif query == b'close':
        conn.sock.sendall(rec(6, b'Content-Type: text/plain\r\n\r\nbefore close\n'))
        note(types + ['(closed)'])
        return False
    elif query == b'slow':
        conn.sock.sendall(rec(6, b'Content-Type: text/plain\r\n\r\n'))
        try:
            for i in range(100):
                r = conn.next(0.1)
                if r and r[0] == 2:
                    types.append('ABORT')
                    break
                conn.sock.sendall(rec(6, b'line %d\n' % i))
            conn.sock.sendall(rec(6) + rec(3, struct.pack('>IB3x', 0, 0)))
        except (BrokenPipeError, ConnectionResetError):
            types.append('(cut)')  # the server shut the connection, as httpd's peers do
        note(types)
        return False
    elif query == b'quiet':
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            for i in range(100):
                r = conn.next(0.1)
                if r and r[0] == 2:
                    types.append('ABORT')
                    break
        except EOFError:
            types.append('(closed)')
        note(types)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        return False
    elif query == b'trailing':
        # its answer, END_REQUEST and a second whole answer in one write
        conn.sock.sendall(rec(6, b'Content-Type: text/plain\r\n\r\ntrailing pid=%d\n' % os.getpid())
                          + rec(6) + rec(3, struct.pack('>IB3x', 0, 0))
                          + rec(6, b'Content-Type: text/plain\r\n\r\nPRIVATE DATA OF request %d\n'
                                % count) + rec(6) + rec(3, struct.pack('>IB3x', 0, 0)))
        note(types)
        return keep
    elif query == b'unknown':
        conn.sock.sendall(rec(11, bytes([42]) + bytes(7), 0))
        conn.sock.sendall(rec(6, b'Content-Type: text/plain\r\n\r\npid=%d\nrequest=%d\n'
                              % (os.getpid(), count)))
    elif query == b'noabort':
        conn.sock.sendall(rec(6, b'body_len=%d pid=%d\n' % (body_len, os.getpid())))
    elif query.startswith(b'gate='):
        conn.sock.sendall(rec(6, b'Content-Type: text/plain\r\n\r\nbody_len=%d pid=%d\n'
                              % (body_len, os.getpid())))
    elif query == b'early':
        conn.sock.sendall(rec(6, b'Content-Type: text/plain\r\n\r\nearly pid=%d\n' % os.getpid()))
    elif query == b'late':
        def late(n, rid):
            time.sleep(0.2)
            conn.sock.sendall(rec(6, b'Content-Type: text/plain\r\n\r\nPRIVATE DATA OF request %d\n'
                                  % n, rid) + rec(6, b'', rid) + rec(3, struct.pack('>IB3x', 0, 0), rid))
        conn.sock.sendall(rec(6, b'Content-Type: text/plain\r\n\r\nlate pid=%d\n' % os.getpid()))
        threading.Thread(target=late, args=(count, RID[0])).start()
    else:
        conn.sock.sendall(rec(6, b'Content-Type: text/plain\r\n\r\npid=%d\nrequest=%d\n'
                              % (os.getpid(), count)))
    if status == 0:
        conn.sock.sendall(rec(6))
    conn.sock.sendall(rec(3, struct.pack('>IB3x', 0, status)))
    note(types)
    return keep


def note(types):
    if ledger:
        with open(ledger, 'a') as f:
            f.write('%d %d %s\n' % (os.getpid(), count, ' '.join(types)))


listener = socket.socket(fileno=0)
while True:
    sock, _ = listener.accept()
    conn = Conn(sock)
    try:
        while serve(conn):
            pass
    except (EOFError, OSError):
        pass
    sock.close()
