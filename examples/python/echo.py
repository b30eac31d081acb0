#!/usr/bin/env python3
"""echo.py: answers the request body byte for byte (CONTENT_LENGTH bytes)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

count = 0
for env in cgiplus.requests():
    count += 1
    out = sys.stdout.buffer
    out.write(b"Content-Type: application/octet-stream\n"
              b"X-Request-Count: %d\nX-Worker-Pid: %d\n\n" % (count, os.getpid()))
    # sys.stdin ends after CONTENT_LENGTH bytes: reading in chunks to the
    # end is safe.
    while True:
        chunk = sys.stdin.buffer.read(65536)
        if not chunk:
            break
        out.write(chunk)
