#!/usr/bin/env python3
# Wraps sys.stdout.buffer in a UTF-8 TextIOWrapper of its own, as many CGI
# scripts do; the wrapper is dropped at the end (closing what it wraps)
# and the engine must go on (t/58_engine_python.t).
import io
import sys

out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8")
out.write("Content-Type: text/plain; charset=utf-8\n\n")
out.write("caf\u00e9 \u2713\n")
out.flush()
