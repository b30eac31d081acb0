#!/usr/bin/python3
# imports the sibhelp.py beside it, as python3 finds it (sys.path[0])
import os
import sys
import sibhelp
print("Content-Type: text/plain\n")
print("who=%s" % sibhelp.WHO)
print("file=%s" % os.path.relpath(sibhelp.__file__, os.path.dirname(os.path.abspath(__file__))))
print("path0=%s" % os.path.basename(sys.path[0]))
print("hits=%d pid=%d" % (sibhelp.hit(), os.getpid()))
