#!/usr/bin/env python3
# What a script sees of its process, per request (t/58_engine_python.t):
# fresh os.environ, sys.argv, __name__, working directory, sys.stdin; a
# module it imports stays loaded (its state persists), its own globals do
# not.
import os
import signal
import sys

import enginehelper   # next to this script

# a handler and a timer the previous run left (it sets both, at its end)
usr1 = "default" if signal.getsignal(signal.SIGUSR1) == signal.SIG_DFL else "handler"
timer = signal.getitimer(signal.ITIMER_REAL)[0]
enginehelper.hits += 1
runs = globals().get("runs", 0) + 1
leak = "yes" if "LEAKED_BY_PREVIOUS" in os.environ else "no"
os.environ["LEAKED_BY_PREVIOUS"] = "1"
body = sys.stdin.read()
print("Content-Type: text/plain")
print()
print("pid=%d" % os.getpid())
print("runs=%d" % runs)
print("helper_hits=%d" % enginehelper.hits)
print("leak=%s" % leak)
print("argv=%s" % "|".join(sys.argv[1:]))
print("argc=%d" % (len(sys.argv) - 1))
print("zero=%s" % sys.argv[0])
print("name=%s" % __name__)
print("file=%s" % __file__)
print("cwd=%s" % os.getcwd())
print("query=%s" % os.environ.get("QUERY_STRING", ""))
print("queryb=%s" % os.fsdecode(os.environb.get(b"QUERY_STRING", b"")))
print("body=%s" % body)
print("script=%s" % os.environ.get("SCRIPT_NAME"))
sys.path.insert(0, "/nonexistent-added-by-script")
print("path_added=%d" % sys.path.count("/nonexistent-added-by-script"))
print("signals=timer %d usr1 %s" % (timer, usr1))
signal.signal(signal.SIGUSR1, lambda *a: None)
signal.setitimer(signal.ITIMER_REAL, 600)
