# t/16_psgi_fork.t: forkapp.psgi's WSGI twin (cgiplus-wsgi). ?fork: the
# child sleeps and exits; ?forkret: the child returns a response of its own
# into the server's loop (a bug in the application).
import os
import time


def app(environ, start_response):
    q = environ.get("QUERY_STRING", "")
    if q in ("fork", "forkret") and os.fork() == 0:
        time.sleep(0.5)
        if q == "fork":
            os._exit(0)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"child answer pid %d\n" % os.getpid()]
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"answer to %s pid %d\n" % (q.encode(), os.getpid())]
