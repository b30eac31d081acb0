#!/usr/bin/env python3
"""ws_chat.py: a chat room. Every message goes to every member (all
connections of the pool, whichever worker holds them) as "name: text"; the
name is ?name=... of the URL; joins and leaves are said too."""
import os
import re
import sys
from urllib.parse import parse_qs

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

ws = cgiplus.WebSocket()
names = {}  # connection id -> name, for this worker's members
for ev in ws.events():
    if ev.type == "open":
        name = parse_qs(ev.env.get("QUERY_STRING", "")).get("name", ["guest"])[0]
        names[ev.conn] = re.sub(r"[^A-Za-z0-9]", "", name)[:31] or "guest"
        offered = ev.env.get("HTTP_SEC_WEBSOCKET_PROTOCOL", "")
        ws.accept(ev.conn, "chat" if "chat" in re.split(r"[ ,]+", offered) else None)
        ws.broadcast("* %s joined" % names[ev.conn])
    elif ev.type == "message":
        if isinstance(ev.data, str):
            ws.broadcast("%s: %s" % (names[ev.conn], ev.data))
    elif ev.type == "close":
        name = names.pop(ev.conn, None)
        if name:
            ws.broadcast("* %s left" % name, exclude=ev.conn)
