#!/usr/bin/env python3
"""hello.py: the bench's persistent Python hello (lib/python/cgiplus.py).
Answers a body of QUERY_STRING bytes of 'x' (0 to 1 MiB)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

bodies = {}
for env in cgiplus.requests():
    try:
        n = max(0, min(int(env.get("QUERY_STRING") or 0), 1 << 20))
    except ValueError:
        n = 0
    body = bodies.get(n)
    if body is None:
        body = bodies[n] = b"x" * n
    out = sys.stdout.buffer
    out.write(b"Content-Type: text/plain\n\n")
    out.write(body)
