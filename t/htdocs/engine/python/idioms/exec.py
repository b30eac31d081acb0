#!/usr/bin/python3
# os.exec*: the program replaces the process, its output is the rest of
# the response, its exit ends it; an exec that fails raises and the script
# goes on. t/58_engine_idioms.t
import os
import sys

runs = globals().get("runs", 0) + 1
if os.environ.get("QUERY_STRING") == "fail":
    try:
        os.execv("/nonexistent/program", ["program"])
    except OSError as e:
        print("Content-Type: text/plain\n\nexec failed: %s, run %d" % (e.strerror, runs))
    sys.exit(0)
os.environ["FROM_SCRIPT"] = "run %d" % runs
print("Content-Type: text/plain\n\nthe script's header, then:", flush=True)
os.execv("/bin/sh", ["sh", "-c", 'echo "the program: $FROM_SCRIPT, query $QUERY_STRING"'])
