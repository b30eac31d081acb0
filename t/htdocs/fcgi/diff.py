#!/usr/bin/python3
"""diff.py: a FastCGI responder written from the specification, for
t/59_fcgid_diff_fuzz.t, which runs it under mod_fcgid and under the
fcgid-script drop-in. Per request it carries out the case QUERY_STRING
names: the JSON file of that name in the directory FZ_CASES names (the
scope's FcgidInitialEnv), a list of steps, the strings' characters being
bytes:
  ["o", DATA, PAD, CUT]  STDOUT records of DATA, CUT bytes each (0: up
                         to 65535), PAD bytes of padding each
  ["e", DATA]            a STDERR record
  ["end", APP, PROTO, EOS]  the empty STDOUT record if EOS, then
                         END_REQUEST with that application and protocol
                         status
  ["die"]                the process exits at once (no END_REQUEST)
  ["close"]              the connection closed, the process serves on
  ["exit"]               the process exits (after an "end": a whole
                         response, then its end)
It reads the whole request before it answers; it keeps the connection
when FCGI_KEEP_CONN says so."""
import json
import os
import socket
import struct
from fcgirec import Conn, nv_decode  # beside this file

CASES = os.environ.get('FZ_CASES', '')


def rec(t, rid, content=b'', pad=0):
    return struct.pack('>BBHHBB', 1, t, rid, len(content), pad, 0) + content + b'\0' * pad


def serve(conn):
    """One request; False once the connection is to be closed."""
    params, rid, keep, done = b'', 1, False, 0
    while done < 2:
        t, r, c = conn.next()
        if t == 1:
            rid, keep = r, bool(c[2] & 1)
        elif t == 4:
            params += c
            done += not c
        elif t == 5:
            done += not c
        elif t == 9:  # management: nothing to tell
            conn.sock.sendall(rec(10, 0))
    name = nv_decode(params).get(b'QUERY_STRING', b'').decode('latin-1')
    try:
        with open(os.path.join(CASES, os.path.basename(name)), encoding='latin-1') as f:
            steps = json.load(f)
    except OSError:
        steps = [['o', 'Status: 404\r\nContent-Type: text/plain\r\n\r\nno case %s\n' % name, 0, 0],
                 ['end', 0, 0, 1]]
    for step in steps:
        op = step[0]
        if op == 'o':
            data, pad, cut = step[1].encode('latin-1'), step[2], step[3] or 65535
            for i in range(0, len(data), cut):
                conn.sock.sendall(rec(6, rid, data[i:i + cut], pad))
        elif op == 'e':
            conn.sock.sendall(rec(7, rid, step[1].encode('latin-1')))
        elif op == 'end':
            conn.sock.sendall((rec(6, rid) if step[3] else b'')
                              + rec(3, rid, struct.pack('>IB3x', step[1], step[2])))
        elif op == 'die':
            os._exit(3)
        elif op == 'close':
            return False
        elif op == 'exit':
            # as a program that ends after a count of requests: the exit
            # closes the connection (not a close first, then a slow exit:
            # the runner would connect again into its backlog)
            os._exit(0)
    return keep


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
