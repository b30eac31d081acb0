#!/usr/bin/python3
# A CGIplus worker that prints a start-up banner before its first request
# (t/3e_cgi_scripts.t): the banner must be discarded with a warning, never
# reach a client. No library; answers with its query string.
import os
import sys

sys.stdout.write("banner.py starting, version 1\n")
sys.stdout.flush()
EOF_ = os.environb[b"CGIPLUSEOF"]
chan = os.fdopen(3, "rb")
while chan.readline() == b"!\n":
    env = {}
    while (line := chan.readline()[:-1]):
        name, _, value = line.partition(b"=")
        env[name] = value
    os.write(1, b"Content-Type: text/plain\n\nquery=" + env.get(b"QUERY_STRING", b"")
             + b" pid=" + str(os.getpid()).encode() + b"\n" + EOF_ + b"\n")
