#!/usr/bin/python3
import atexit, sys
atexit.register(lambda: print("from atexit"))
atexit.register(sys.stdout.write, "second registered, runs first\n")
print("Content-Type: text/plain\n\nbody")
