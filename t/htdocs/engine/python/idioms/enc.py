#!/usr/bin/python3
# its streams encoding, and a character past ASCII
import sys
print("Content-Type: text/plain; charset=%s" % sys.stdout.encoding)
print()
print("stdout %s %s, stdin %s %s" % (sys.stdout.encoding, sys.stdout.errors, sys.stdin.encoding, sys.stdin.errors))
print("caf\u00e9 " + sys.stdin.read())
