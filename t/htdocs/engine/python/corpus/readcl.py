#!/usr/bin/python3
import os, sys
n = int(os.environ.get("CONTENT_LENGTH") or 0)
data = sys.stdin.buffer.read(n)
more = sys.stdin.buffer.read(100)
print("Content-Type: text/plain\n\nread=%d %r more=%r" % (len(data), data, more))
