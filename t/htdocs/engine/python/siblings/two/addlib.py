#!/usr/bin/python3
# a directory of its own put on sys.path, then a module from it
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "libtwo"))
import sibconf
print("Content-Type: text/plain\n")
print("where=%s" % sibconf.WHERE)
