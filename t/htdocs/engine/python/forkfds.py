#!/usr/bin/python3
# forkfds.py (t/58_engine_fork_fds.t): ?leave answers, then forks a child
# that closes its stdin, stdout and stderr (as a daemon does) and, once
# ?next has started (the go file), writes a line to every descriptor it
# still has (below 100: what httpd inherited from whoever started it, a
# shell's descriptor 251 here, reaches mod_cgid's children, and a write
# there blocked) and lists those the writes went
# to in the flag file; ?next (another client's request to the same engine)
# answers once that list is written (or after 15 s).
import os
import sys
import time

logs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "logs")
flag = os.path.join(logs, "engine_forkfds_flag")
go = os.path.join(logs, "engine_forkfds_go")
q = os.environ.get("QUERY_STRING", "")
if q == "leave":
    for f in (flag, go):
        open(f, "w").close()
    print("Content-Type: text/plain\n\nanswer to leave")
    sys.stdout.flush()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        for _ in range(600):
            if os.path.getsize(go):
                break
            time.sleep(0.05)
        wrote = []
        for fd in sorted(int(n) for n in os.listdir("/proc/self/fd") if int(n) < 100):
            try:
                if os.write(fd, b"LEFTOVER fd %d\n" % fd):
                    wrote.append(str(fd))
            except OSError:
                pass
        with open(flag, "w") as f:
            f.write("wrote to: %s\n" % " ".join(wrote))
        os._exit(0)
elif q == "next":
    with open(go, "w") as g:
        g.write("go\n")
    for _ in range(300):
        if os.path.getsize(flag):
            break
        time.sleep(0.05)
    print("Content-Type: text/plain\n\nanswer to next")
else:
    print("Content-Type: text/plain\n\nanswer to %s" % q)
