#!/usr/bin/python3 -B
# -B: no .pyc written for the modules it imports.
import sys
print("Content-Type: text/plain\n\ndont_write_bytecode=%s flag=%s" % (sys.dont_write_bytecode, sys.flags.dont_write_bytecode))
