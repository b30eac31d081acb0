#!/usr/bin/env python3
# run_wsgi and an application that raises (t/57_lib_failure.t).
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "lib", "python"))
import cgiplus  # noqa: E402


def app(environ, start_response):
    q = environ.get("QUERY_STRING", "")
    if q.startswith("boom"):
        raise ValueError("failure-marker " + q)
    start_response("200 OK", [("Content-Type", "text/plain")])
    if q.startswith("late"):
        def body():
            yield b"partial\n"
            raise ValueError("failure-marker " + q)
        return body()
    return [("ok pid=%d q=%s\n" % (os.getpid(), q)).encode()]


cgiplus.run_wsgi(app)
