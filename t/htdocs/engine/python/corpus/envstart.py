#!/usr/bin/python3
# SetEnv PYTHONHASHSEED 0, PYTHONOPTIMIZE 1, PYTHONDONTWRITEBYTECODE 1,
# PYTHONSAFEPATH 1: what python3 takes from them at its start.
import os, sys
here = os.path.dirname(os.path.realpath(__file__))
print("Content-Type: text/plain\n")
print("hash=%d debug=%s optimize=%d dont_write=%s here_on_path=%s"
      % (hash("corpus"), __debug__, sys.flags.optimize, sys.dont_write_bytecode, here in sys.path))
