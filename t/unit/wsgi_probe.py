#!/usr/bin/env python3
"""wsgi_probe.py: a WSGI application served by cgiplus.run_wsgi, for
t/unit/script_harness.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

count = 0


def app(environ, start_response):
    global count
    count += 1
    if environ.get("PATH_INFO") == "/boom":
        raise RuntimeError("boom")
    body = environ["wsgi.input"].read()
    keys = ",".join(sorted(k for k in environ if k.startswith("CGIPLUS")))
    start_response("201 Created", [("Content-Type", "text/plain"),
                                   ("X-Count", str(count))])
    return [b"body=", body, b"\nscheme=%s markers=%s once=%s\n" % (
        environ["wsgi.url_scheme"].encode(), keys.encode(),
        str(environ["wsgi.run_once"]).encode())]


cgiplus.run_wsgi(app)
