#!/usr/bin/env python3
"""Callout round trip and struct mode from Python (see t/src/callout.c)."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

for env in cgiplus.requests():
    q = os.environ.get("QUERY_STRING", "")
    out = "Content-Type: text/plain\n\n"
    if q == "noop":
        out += "answer=%s\n" % cgiplus.callout("NOOP: hello")
    elif q == "log":
        out += "answer=%s\n" % cgiplus.callout("LOG: callout-log-line-from-python")
    elif q == "map":
        out += "answer=%s\n" % cgiplus.callout("MAP-PATH: /c/hello")
    elif q == "struct":
        cgiplus.struct_mode()
        out += "struct=0\n"
    elif q == "record":
        out += "answer=%s\n" % cgiplus.callout("CGIPLUS: record")
    else:
        out += "path=%s pid=%d\n" % (os.environ.get("PATH_INFO", "").replace("\n", "\\n"),
                                     os.getpid())
    sys.stdout.write(out)
