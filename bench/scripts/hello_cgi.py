#!/usr/bin/env python3
"""hello_cgi.py: the same hello as a plain CGI script, as one is usually
written (no library): one process per request."""
import os
import sys

try:
    n = max(0, min(int(os.environ.get("QUERY_STRING") or 0), 1 << 20))
except ValueError:
    n = 0
sys.stdout.buffer.write(b"Content-Type: text/plain\n\n" + b"x" * n)
