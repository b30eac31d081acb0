#!/usr/bin/env python3
"""ws_echo.py: a WebSocket echo. Each message comes back to its sender, as
text or binary as it came. One worker holds many connections."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

ws = cgiplus.WebSocket()
for ev in ws.events():
    if ev.type == "open":
        ws.accept(ev.conn)
    elif ev.type == "message":
        ws.send(ev.conn, ev.data)
