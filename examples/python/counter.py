#!/usr/bin/env python3
"""counter.py: a per-process request counter; above 1 proves persistence."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

count = 0
while cgiplus.accept():
    count += 1
    sys.stdout.write("Content-Type: text/plain\n\ncount=%d pid=%d\n"
                     % (count, os.getpid()))
    cgiplus.finish()
