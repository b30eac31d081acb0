#!/usr/bin/env python3
"""raw.py: speaks the CGIplus script protocol by hand, exactly as
docs/PROTOCOL.md part 2 describes it, with no library; t/15_protocol.t
drives it. Runs as plain CGI too (no CGIPLUSEOF). The query string says
what to do:

    show=NAME[&...] NAME's value: its length and its bytes in hex
    callout=LINES   one callout block with LINES (%0A between lines); prints
                    each answer line as "answer=..."
    crlf            ends the response with the sentinel and CR LF
    inline          writes the sentinel value followed by "x" inside the body
    readall         reads stdin to its end (plain CGI: EOF after the body;
                    persistent: never, the request times out)
    (anything else) reads exactly CONTENT_LENGTH bytes, shows them as body=
    crash           writes a whole response, then exits without its sentinel
"""
import os
import sys
from urllib.parse import unquote_to_bytes

environ = os.environb
EOF = environ.get(b"CGIPLUSEOF")
if EOF:
    ESC, EOT = environ[b"CGIPLUSESC"], environ[b"CGIPLUSEOT"]
    # Step 2 of the checklist: a buffer we own is fine, the runner writes
    # nothing more on CGIPLUSIN until we ask.
    chan = os.fdopen(3, "rb")


def out(data):
    while data:
        data = data[os.write(1, data):]


def read_body(n):
    """Exactly n bytes of fd 0 (never more: the next body follows)."""
    parts = []
    while n > 0:
        data = os.read(0, n)
        if not data:
            break
        parts.append(data)
        n -= len(data)
    return b"".join(parts)


def read_all():
    """fd 0 to its end: plain CGI only (a worker's fd 0 never ends)."""
    parts = []
    while True:
        data = os.read(0, 65536)
        if not data:
            return b"".join(parts)
        parts.append(data)


def accept():
    """One request: its variables as bytes, or None at the end."""
    if not EOF:
        return None if accept.done else dict(environ)
    line = chan.readline()
    if not line:
        return None
    if line != b"!\n":
        sys.exit("raw.py: expected '!', got %r" % line)
    env = {}
    while True:
        line = chan.readline()[:-1]      # NAME=value, raw bytes, LF removed
        if not line:
            return env
        name, _, value = line.partition(b"=")
        env[name] = value


accept.done = False


def callout(lines):
    out(ESC + b"\n" + b"".join(x + b"\n" for x in lines) + EOT + b"\n")
    return [chan.readline()[:-1] for x in lines if x[:1] not in (b"!", b"#")]


while True:
    env = accept()
    if env is None:
        break
    accept.done = True
    q = env.get(b"QUERY_STRING", b"")
    act, _, arg = q.partition(b"=")
    arg = unquote_to_bytes(arg)
    if act == b"readall":
        body = read_all()
    elif EOF:
        body = read_body(int(env.get(b"CONTENT_LENGTH") or b"0"))
    else:
        body = read_all()   # plain CGI: stdin ends after the body
    resp = b"Content-Type: application/octet-stream\n\n"
    resp += b"pid=%d\n" % os.getpid()
    if act == b"show":
        v = env.get(arg.partition(b"&")[0])
        resp += b"(unset)\n" if v is None else b"len=%d hex=%s\n" % (len(v), v.hex().encode())
    elif act == b"callout":
        out(resp)
        resp = b"".join(b"answer=" + a + b"\n" for a in callout(arg.split(b"\n")))
    elif act == b"inline":
        resp += b"before " + EOF + b"x after\n"
    else:
        resp += b"body=" + body + b"\n"
    out(resp)
    if act == b"crash":
        sys.exit(3)
    if EOF:
        out(EOF + (b"\r\n" if act == b"crlf" else b"\n"))
