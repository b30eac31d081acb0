#!/usr/bin/env python3
"""refuse.py (t/70): refuses an upgrade whose query says deny (403, a
header, a body); accepts with the subprotocol named by proto=...; echoes.
With bad: makes six calls the runner would refuse, each of which must raise
ValueError and send nothing, then refuses 400 saying how many did
(X-Invalid)."""
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "lib", "python"))
import cgiplus  # noqa: E402

ws = cgiplus.WebSocket()


def invalid_calls(conn):
    n = 0
    for call in (lambda: ws.refuse(conn, 99),
                 lambda: ws.refuse(conn, 403, [("Bad Name", "x")]),
                 lambda: ws.refuse(conn, 403, [("Status", "200 OK")]),
                 lambda: ws.refuse(conn, 403, [("X-A", "a\nb")]),
                 lambda: ws.close(conn, 1005),
                 lambda: ws.close(conn, 1000, "x" * 124)):
        try:
            call()
        except ValueError:
            n += 1
    return n

for ev in ws.events():
    if ev.type == "open":
        qs = ev.env.get("QUERY_STRING", "")
        if qs == "bad":
            ws.refuse(ev.conn, 400, [("X-Invalid", str(invalid_calls(ev.conn)))], "checked\n")
        elif "deny" in qs:
            ws.refuse(ev.conn, 403, [("Content-Type", "text/plain"), ("X-Why", "denied here")],
                      "go away\n")
        elif qs.startswith("proto="):
            ws.accept(ev.conn, qs[6:])
        else:
            ws.accept(ev.conn)
    elif ev.type == "message":
        ws.send(ev.conn, ev.data)
