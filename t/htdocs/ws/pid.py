#!/usr/bin/env python3
"""pid.py (t/7x): answers "<tag> <pid> <message>" (t/73 deploys copies
with another tag); "die" makes the worker exit at once, "close" closes
the connection with 4001, "flood N SIZE" sends N messages of SIZE bytes,
"bcast TEXT" broadcasts TEXT to the pool, "sleep S" sleeps (then says
"slept"), "env NAME" answers that CGI variable of the upgrade."""
import os
import sys
LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../lib/python")
sys.path.insert(0, LIB)
import cgiplus  # noqa: E402

tag = "v0"
ws = cgiplus.WebSocket()
envs = {}
for ev in ws.events():
    if ev.type == "open":
        envs[ev.conn] = ev.env
        ws.accept(ev.conn)
    elif ev.type == "close":
        envs.pop(ev.conn, None)
        sys.stderr.write("closed %d %d\n" % (ev.conn, ev.code))
    elif ev.type == "message":
        m = ev.data if isinstance(ev.data, str) else ""
        if m == "die":
            os._exit(3)
        elif m == "close":
            ws.close(ev.conn, 4001, "asked")
        elif m.startswith("flood "):
            _, n, size = m.split()
            for i in range(int(n)):
                ws.send(ev.conn, ("%08d" % i) + "x" * (int(size) - 8))
        elif m.startswith("bcast "):
            ws.broadcast(m[6:])
        elif m.startswith("sleep "):
            import time
            time.sleep(float(m[6:]))
            ws.send(ev.conn, "slept")
        elif m.startswith("env "):
            ws.send(ev.conn, envs.get(ev.conn, {}).get(m[4:], "(unset)"))
        else:
            ws.send(ev.conn, "%s %d %s" % (tag, os.getpid(), m))
