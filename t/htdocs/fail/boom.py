#!/usr/bin/env python3
# Issue 25, point 1 (t/57_lib_failure.t): cgiplus.py and a script that
# raises, with the requests() loop or, when run as boom_loop.py (a link to
# this file), with accept()/finish(). ?boom raises before any output, ?late
# after its header went out; anything else answers "ok pid=P q=QUERY".
import atexit
import os
import sys
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

# Clean-up at exit takes a while (closing connections, say): the worker is
# still alive a moment after its request failed.
atexit.register(time.sleep, 0.3)


def handle(q):
    if q.startswith("boom"):
        raise ValueError("failure-marker " + q)
    print("Content-Type: text/plain\n")
    if q.startswith("late"):
        print("partial", flush=True)
        raise ValueError("failure-marker " + q)
    print("ok pid=%d q=%s" % (os.getpid(), q))


if os.path.basename(sys.argv[0]) == "boom_loop.py":
    while cgiplus.accept():
        handle(os.environ.get("QUERY_STRING", ""))
        cgiplus.finish()
else:
    for env in cgiplus.requests():
        handle(env.get("QUERY_STRING", ""))
