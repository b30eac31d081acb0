#!/usr/bin/python3
# a module from the directory PYTHONPATH names, if it does
import sys
try:
    import ppmod
    found = ppmod.WHO
except ImportError:
    found = "none"
print("Content-Type: text/plain")
print()
print("ppmod: %s" % found)
print("after the script's directory: %s" % any(p.endswith("/pplib") for p in sys.path[1:2]))
