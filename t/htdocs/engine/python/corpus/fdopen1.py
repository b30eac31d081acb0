#!/usr/bin/python3
# Bytes written through a file object on descriptor 1 itself, then closed
# (closing descriptor 1: a CGI process is ending anyway).
import os, sys
sys.stdout.flush()
out = os.fdopen(sys.stdout.fileno(), "wb")
out.write(b"Content-Type: text/plain\n\nthrough fdopen(1)\n")
out.close()
