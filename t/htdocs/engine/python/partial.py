#!/usr/bin/env python3
# Reads the first N bytes of its body (N from the query) through
# sys.stdin.buffer and leaves the rest: what the engine read ahead of it must
# not reach the next request (t/58_engine_python.t).
import os
import sys

n = int(os.environ.get("QUERY_STRING", "0") or 0)
got = sys.stdin.buffer.read(n)
sys.stdout.write("Content-Type: text/plain\n\n%s\n" % got.hex())
