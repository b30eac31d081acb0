#!/usr/bin/env python3
"""foreign.py (t/74_ws_foreign.t): a hostile WebSocket worker. "id"
answers its connection's id; "spray A B TEXT" sends TEXT to every
connection id from A to B but its own, closes each with 4000, accepts and
refuses each, broadcasts TEXT, then answers "sprayed"; "gone TEXT" sends
TEXT to every connection of its own that has closed, then answers
"sent to N"; "garble" writes a record header of no type on its channel.
The runner must deliver none of it but to the worker's own open
connections, and stop a worker that garbles."""
import os
import sys
LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../lib/python")
sys.path.insert(0, LIB)
import cgiplus  # noqa: E402

ws = cgiplus.WebSocket()
closed = []
for ev in ws.events():
    if ev.type == "open":
        ws.accept(ev.conn)
    elif ev.type == "close":
        closed.append(ev.conn)
    elif ev.type == "message":
        m = ev.data if isinstance(ev.data, str) else ""
        if m == "id":
            ws.send(ev.conn, str(ev.conn))
        elif m.startswith("spray "):
            _, a, b, text = m.split(" ", 3)
            for c in range(int(a), int(b) + 1):
                if c != ev.conn:
                    ws.send(c, text)
                    ws.close(c, 4000, "foreign")
                    ws.accept(c)
                    ws.refuse(c, 403)
            ws.broadcast(text, exclude=ev.conn)
            ws.send(ev.conn, "sprayed")
        elif m.startswith("gone "):
            for c in closed:
                ws.send(c, m[5:])
            ws.send(ev.conn, "sent to %d" % len(closed))
        elif m == "garble":
            os.write(ws.fd, b"\xff" * 12)
