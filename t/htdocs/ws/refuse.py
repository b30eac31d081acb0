#!/usr/bin/env python3
"""refuse.py (t/70): refuses an upgrade whose query says deny (403, a
header, a body); accepts with the subprotocol named by proto=...; echoes."""
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "lib", "python"))
import cgiplus  # noqa: E402

ws = cgiplus.WebSocket()
for ev in ws.events():
    if ev.type == "open":
        qs = ev.env.get("QUERY_STRING", "")
        if "deny" in qs:
            ws.refuse(ev.conn, 403, [("Content-Type", "text/plain"), ("X-Why", "denied here")],
                      "go away\n")
        elif qs.startswith("proto="):
            ws.accept(ev.conn, qs[6:])
        else:
            ws.accept(ev.conn)
    elif ev.type == "message":
        ws.send(ev.conn, ev.data)
