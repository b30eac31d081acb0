#!/usr/bin/python3
import sys
try:
    line = input()
except EOFError:
    line = "EOF"
rest = sys.stdin.read()
print("Content-Type: text/plain\n\ninput=%r rest=%r" % (line, rest))
