#!/usr/bin/python3
"""corpus docstring"""
import os, sys
def main():
    print("Content-Type: text/plain\n")
    print("file=%s name=%s argv0=%s doc=%s" % (os.path.basename(__file__), __name__, os.path.basename(sys.argv[0]), __doc__))
    print("globals=%s" % " ".join(sorted(k for k in globals() if k.startswith("__"))))
    print("spec=%r package=%r" % (__spec__, __package__))
if __name__ == "__main__":
    main()
