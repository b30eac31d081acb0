#!/usr/bin/python3
import io, sys
old = sys.stdout
sys.stdout = io.StringIO()
print("captured line")
text = sys.stdout.getvalue()
sys.stdout = old
print("Content-Type: text/plain\n\n" + text, end="")
