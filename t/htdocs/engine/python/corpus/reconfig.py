#!/usr/bin/python3
import sys
sys.stdout.reconfigure(encoding="latin-1")
print("Content-Type: text/plain; charset=latin-1\n\ncaf\u00e9")
