#!/usr/bin/python3 -E
# buffered: -E ignores PYTHONUNBUFFERED (500 under mod_cgid)
import os
print("Content-Type: text/plain")
print()
print("before the child")
os.system("echo from the child")
