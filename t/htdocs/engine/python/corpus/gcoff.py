#!/usr/bin/python3
# Turns the garbage collector off and raises the recursion limit, for itself.
import gc, sys
was = (gc.isenabled(), sys.getrecursionlimit())
gc.disable()
sys.setrecursionlimit(50000)
print("Content-Type: text/plain\n\ngc enabled=%s recursion limit=%d" % was)
