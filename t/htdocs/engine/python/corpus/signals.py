#!/usr/bin/python3
import signal
was = (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGPIPE), signal.getsignal(signal.SIGINT) is signal.default_int_handler)
signal.signal(signal.SIGTERM, lambda *a: None)
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
signal.signal(signal.SIGINT, signal.SIG_IGN)
print("Content-Type: text/plain\n\n%r %r %r" % was)
