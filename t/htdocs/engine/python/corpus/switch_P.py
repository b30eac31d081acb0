#!/usr/bin/python3 -P
# -P: the script's directory is not put on sys.path.
import os, sys
here = os.path.dirname(os.path.realpath(__file__))
print("Content-Type: text/plain\n\nsafe_path=%s here_on_path=%s" % (sys.flags.safe_path, here in sys.path))
