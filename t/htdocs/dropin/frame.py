#!/usr/bin/python3
# Response framing (t/3e_cgi_scripts.t), no library: each response is one
# write with its sentinel, except ?stream (the header, then the body and the
# sentinel 0.3 s later). ?empty: a header and no body.
import os
import time

EOF = os.environb[b"CGIPLUSEOF"]
chan = os.fdopen(3, "rb")
while chan.readline() == b"!\n":
    env = {}
    while (line := chan.readline()[:-1]):
        name, _, value = line.partition(b"=")
        env[name] = value
    q = env.get(b"QUERY_STRING", b"")
    head = b"Content-Type: text/plain\n\n"
    if q == b"empty":
        os.write(1, head + EOF + b"\n")
    elif q == b"stream":
        os.write(1, head + b"first\n")
        time.sleep(0.3)
        os.write(1, b"second\n" + EOF + b"\n")
    else:
        os.write(1, head + b"small body " + q + b"\n" + EOF + b"\n")
