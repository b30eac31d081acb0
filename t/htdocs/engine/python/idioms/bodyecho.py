#!/usr/bin/python3
# The request's body, read by sys.stdin. t/58_engine_idioms.t
import sys
body = sys.stdin.read()
print("Content-Type: text/plain\n\nbody=[%s]" % body)
