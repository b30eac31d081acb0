#!/usr/bin/python3
# A WSGI application run as CGI with wsgiref's BaseCGIHandler and
# os.environ, as many scripts do: wsgiref.handlers takes os.environ once,
# as it is imported (BaseHandler.os_environ), and adds the handler's
# environ to that for each request.
import os, sys
from wsgiref.handlers import BaseCGIHandler


def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [("".join("%s=%s\n" % (k, environ.get(k, "-"))
                     for k in ("HTTP_COOKIE", "HTTP_X_CORPUS", "CONTENT_TYPE", "QUERY_STRING"))).encode()]


BaseCGIHandler(sys.stdin.buffer, sys.stdout.buffer, sys.stderr, os.environ,
               multithread=False, multiprocess=True).run(app)
