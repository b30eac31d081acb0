#!/usr/bin/python3
"""h2sse.py PORT PATH NEXT: on one HTTP/2 (h2c, prior knowledge)
connection, NEXT first (the pool's only worker started and warm, and this
httpd child knows its pool), then PATH (a stream of server-sent events),
reset (RST_STREAM CANCEL) 0.3 s after its first event came, then NEXT
again. Prints one line: the stream's status, NEXT's status (t/53_sse_reset.t).
Needs python3-h2 (Debian's), run with /usr/bin/python3."""
import sys
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from h2reset import Conn  # noqa: E402


def main():
    port, path, nxt = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    c = Conn(port)
    w = c.get(nxt)
    c.wait(w, 20)
    s = c.get(path)
    end = time.time() + 20
    while time.time() < end and s not in c.status:
        c.pump(0.1)  # its headers come with its first event
    time.sleep(0.3)
    c.pump(0.05)
    if s in c.ended:
        print("S %s ended early" % c.status.get(s, "-"))
        return
    c.reset(s)
    d = c.get(nxt)
    c.wait(d, 30)
    print("S %s D %s" % (c.status.get(s, "-"), c.status.get(d, "-")))


main()
