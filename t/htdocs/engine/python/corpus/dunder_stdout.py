#!/usr/bin/python3
# Captures into a StringIO, then puts back sys.__stdout__ (a common idiom).
import io, sys
sys.stdout = io.StringIO()
print("captured")
text = sys.stdout.getvalue()
sys.stdout = sys.__stdout__
print("Content-Type: text/plain\n")
print("got " + text, end="")
