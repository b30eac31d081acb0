#!/usr/bin/python3 -E
# The same variables, ignored (-E): as python3 starts without them.
import os, sys
here = os.path.dirname(os.path.realpath(__file__))
print("Content-Type: text/plain\n")
print("randomized=%d debug=%s optimize=%d dont_write=%s here_on_path=%s"
      % (sys.flags.hash_randomization, __debug__, sys.flags.optimize, sys.dont_write_bytecode, here in sys.path))
