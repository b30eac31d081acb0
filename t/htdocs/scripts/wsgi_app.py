#!/usr/bin/env python3
"""A WSGI application written against the standard library only, run
persistently through cgiplus.run_wsgi (and unchanged as plain CGI)."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

hits = 0


def app(environ, start_response):
    global hits
    hits += 1
    path = environ.get("PATH_INFO", "")
    if path == "/post":
        n = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(n)
        start_response("200 OK", [("Content-Type", environ.get("CONTENT_TYPE", "")),
                                  ("X-Length", str(len(body)))])
        return [body]
    if path == "/teapot":
        start_response("418 I'm a teapot", [("Content-Type", "text/plain"),
                                            ("X-Custom", "short and stout")])
        return [b"teapot\n"]
    if path == "/header":
        value = environ.get("HTTP_X_TEST", "")
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [("x-test=%s\n" % value).encode("latin-1")]
    if path.startswith("/raw/"):
        # PEP 3333: a value is the bytes httpd sent, one character a byte
        start_response("200 OK", [("Content-Type", "application/octet-stream")])
        return [b"path=" + path.encode("latin-1") + b" x-test=" +
                environ.get("HTTP_X_TEST", "").encode("latin-1") + b"\n"]
    if path == "/close":
        # a hop-by-hop header (PEP 3333 forbids it; mod_wsgi passes it on)
        start_response("200 OK", [("Content-Type", "text/plain"), ("Connection", "close")])
        return [b"closing\n"]
    if path == "/child":
        # A program that reads its stdin, run after the body is read: it
        # gets its end at once, as under mod_wsgi (descriptor 0 /dev/null).
        import subprocess
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        try:
            got = subprocess.run(["cat"], stdout=subprocess.PIPE, timeout=3).stdout
        except subprocess.TimeoutExpired:
            got = b"(still waiting after 3 s)"
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"child=%r body=%r pid=%d\n" % (got, body, os.getpid())]
    if path == "/badheader":
        # what a header (or the status) made of a request's data may hold
        bad = {"lf": ("200 OK", "a\nX-Injected: 1"),
               "crlf2": ("200 OK", "a\r\n\r\nsmuggled body"),
               "status": ("200 OK\nX-Injected: 1", "a"),
               "snowman": ("200 OK", "\u2603")}[environ.get("QUERY_STRING", "")]
        start_response(bad[0], [("Content-Type", "text/plain"), ("X-Echo", bad[1])])
        return [b"answered\n"]
    if path in ("/emptyfirst", "/emptylead"):
        # a first block that is empty, then an error or the body
        start_response("200 OK", [("Content-Type", "text/plain")])

        def blocks():
            yield b""
            if path == "/emptyfirst":
                raise RuntimeError("failed before the first byte")
            yield b"after an empty block\n"
        return blocks()
    if path == "/closefails":
        # the response is whole; then its close() fails (as a framework's
        # request-finished hook may)
        class Body:
            def __iter__(self):
                return iter([b"whole body pid=%d\n" % os.getpid()])

            def close(self):
                raise RuntimeError("close failed on purpose")
        start_response("200 OK", [("Content-Type", "text/plain")])
        return Body()
    if path == "/iter":
        start_response("200 OK", [("Content-Type", "text/plain")])
        return (("line %d\n" % i).encode() for i in range(3))
    start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8")])
    return [("hello wsgi hits=%d pid=%d method=%s multiprocess=%s\n" % (
        hits, os.getpid(), environ["REQUEST_METHOD"],
        environ.get("wsgi.multiprocess"))).encode()]


cgiplus.run_wsgi(app)
