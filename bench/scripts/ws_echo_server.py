#!/usr/bin/env python3
"""ws_echo_server.py PORT: the peer of bench/ws's echo (docs/BENCH.md,
"WebSocket"): Debian's python3-websockets serving the same echo, for
mod_proxy_wstunnel to stand in front of."""
import asyncio
import logging
import sys

import websockets


async def echo(ws, path=None):
    async for m in ws:
        await ws.send(m)


async def main(port):
    async with websockets.serve(echo, "127.0.0.1", port, max_size=None, ping_interval=None):
        await asyncio.Future()

logging.basicConfig(level=logging.CRITICAL)  # clients that just go are no news
asyncio.run(main(int(sys.argv[1])))
