#!/usr/bin/env python3
"""soak.py: the script bench/soak drives (a persistent CGIplus worker).

Every request first appends "ID PID TIME" to the ledger (SOAK_LEDGER, one
write with O_APPEND) so the soak can tell which process ran it and that no
request ran twice; ID is the client's X-Soak-Id. Then, by ?kind=:
  get      a short answer
  post     reads the body, answers its length and CRC-32
  sse      ?n= events, flushed one by one, 20 ms apart
  big      ?size= bytes of output
Every response carries the ID back (X-Soak-Token): the soak checks that
no response reached another request than its own.
"""
import os
import sys
import time
import zlib

sys.path.insert(0, os.environ.get("SOAK_LIB", ""))
import cgiplus  # noqa: E402

ledger = os.open(os.environ["SOAK_LEDGER"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
for env in cgiplus.requests():
    rid = env.get("HTTP_X_SOAK_ID", "-")
    os.write(ledger, ("%s %d %.6f\n" % (rid, os.getpid(), time.time())).encode())
    q = dict(p.split("=", 1) for p in env.get("QUERY_STRING", "").split("&") if "=" in p)
    kind = q.get("kind", "get")
    out = sys.stdout.buffer
    # every response names its request: the soak checks it is the client's
    head = b"Content-Type: %s\nX-Soak-Token: " + rid.encode() + b"\nX-Soak-Pid: %d\n\n"
    if kind == "post":
        crc, n = 0, 0
        while True:
            chunk = sys.stdin.buffer.read(65536)
            if not chunk:
                break
            crc = zlib.crc32(chunk, crc)
            n += len(chunk)
        out.write(head % (b"text/plain", os.getpid()))
        out.write(b"len=%d crc=%d\n" % (n, crc))
    elif kind == "sse":
        out.write(head % (b"text/event-stream", os.getpid()))
        for i in range(int(q.get("n", "10"))):
            out.write(b"data: %d\n\n" % i)
            out.flush()
            time.sleep(0.02)
    elif kind == "big":
        size = int(q.get("size", "0"))
        out.write(head % (b"application/octet-stream", os.getpid()))
        block = b"0123456789abcdef" * 4096
        while size > 0:
            out.write(block[:size])
            size -= min(size, len(block))
    else:
        out.write(head % (b"text/plain", os.getpid()))
        out.write(b"ok %s\n" % rid.encode())
