#!/usr/bin/env python3
# sys.exit() in the middle of a request ends the request, not the engine
# (t/58_engine_python.t): ?0 exits 0, ?3 exits 3, ?raise raises before any
# output, ?late raises after its output.
import os
import sys

q = os.environ.get("QUERY_STRING", "")
if q == "raise":
    raise RuntimeError("engine-test-raise")
print("Content-Type: text/plain")
print()
print("before pid=%d" % os.getpid())
if q == "late":
    raise RuntimeError("engine-test-late")
if q:
    sys.stdout.flush()
    sys.exit(3 if q == "3" else 0)
print("not exited")
