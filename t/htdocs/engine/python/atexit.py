#!/usr/bin/env python3
# atexit under the engine (t/58_engine_python.t): what the script registers
# runs when its request ends; what a module registers (weakref.finalize's
# hook, on its first use) stays the engine's, so finalizers still fire in
# the engine's later requests.
import atexit
import os
import weakref


class Thing:
    pass


print("Content-Type: text/plain")
print()
thing = Thing()
weakref.finalize(thing, print, "finalized")
del thing
atexit.register(print, "atexit pid=%d" % os.getpid())
