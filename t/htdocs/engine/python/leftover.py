#!/usr/bin/python3
# leftover.py (t/58_engine_leftover.t): ?leave answers, then forks a child
# that keeps stdout, prints a line 1.5 s later and then writes the flag
# file; ?daemon the same from a grandchild whose parent exits at once (a
# double fork); ?thread does the same from a daemon thread, once ?slow has
# started; ?slow (another request to the same engine) answers once that
# flag is written or the engine that served ?leave or ?thread is gone;
# ?shm starts multiprocessing's resource tracker, a helper that serves
# the engine's later runs.
import os
import sys
import threading
import time

logs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "logs")
flag = os.path.join(logs, "engine_leftover_flag")
pidf = os.path.join(logs, "engine_leftover_pid")
go = os.path.join(logs, "engine_leftover_go")
q = os.environ.get("QUERY_STRING", "")
print("Content-Type: text/plain\n\nanswer to %s" % q)
sys.stdout.flush()


# (the engine empties the script's globals after its run: the thread keeps
# what it needs)
def late(who, sys=sys, os=os, time=time, open=open, flag=flag, go=go):
    if who == "thread":
        for _ in range(600):
            if os.path.getsize(go):
                break
            time.sleep(0.05)
    else:
        time.sleep(1.5)
    print("late output of the %s" % who)
    sys.stdout.flush()
    with open(flag, "w") as f:
        f.write("done\n")


if q in ("leave", "daemon", "thread"):
    open(flag, "w").close()
    open(go, "w").close()
    with open(pidf, "w") as f:
        f.write("%d\n" % os.getpid())
    if q == "thread":
        threading.Thread(target=late, args=("thread",), daemon=True).start()
    else:
        pid = os.fork()
        if pid == 0:
            if q == "daemon" and os.fork():
                os._exit(0)
            late("child")
            sys.exit(0)
        if q == "daemon":
            os.waitpid(pid, 0)
elif q == "shm":
    # multiprocessing's resource tracker, which lives on in the engine
    from multiprocessing import shared_memory
    shm = shared_memory.SharedMemory(create=True, size=16)
    shm.close()
    shm.unlink()
    print("shared memory made and gone")
elif q == "slow":
    with open(go, "w") as f:
        f.write("go\n")
    with open(pidf) as f:
        epid = int(f.read() or 0)
    for _ in range(600):
        if os.path.getsize(flag):
            break
        try:
            os.kill(epid, 0)
        except OSError:
            break
        time.sleep(0.05)
