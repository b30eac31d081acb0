#!/usr/bin/python3 -I
# -I: isolated: not the script's directory on sys.path, no PYTHON*
# variables, no user site.
import os, sys
here = os.path.dirname(os.path.realpath(__file__))
print("Content-Type: text/plain\n\nisolated=%s here_on_path=%s" % (sys.flags.isolated, here in sys.path))
try:
    import corpus_sib_i
    print("imported the sibling")
except ImportError:
    print("no sibling")
