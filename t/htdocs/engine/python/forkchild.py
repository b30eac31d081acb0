#!/usr/bin/python3
# forkchild.py (t/58_engine_fork.t): ?fork answers, then forks a child that
# does "background work" (waits until ?wait writes the flag file) and
# exits, its stdout closed first as a CGI program's background child must
# (else mod_cgi, and the engine, wait for it to end the response); ?wait
# writes the flag, waits for that child, and answers.
import os
import sys
import time
import builtins

flag = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "logs",
                    "engine_fork_flag")
q = os.environ.get("QUERY_STRING", "")
print("Content-Type: text/plain\n\nanswer to %s pid %d" % (q, os.getpid()))
if q == "fork":
    open(flag, "w").close()
    pid = os.fork()
    if pid == 0:
        os.close(1)
        for _ in range(400):
            if os.path.getsize(flag):
                break
            time.sleep(0.05)
        sys.exit(0)
    builtins.forkchild_pid = pid    # the engine's process keeps it for ?wait
elif q == "wait" and getattr(builtins, "forkchild_pid", 0):
    with open(flag, "w") as f:
        f.write("go\n")
    os.waitpid(builtins.forkchild_pid, 0)
    builtins.forkchild_pid = 0
