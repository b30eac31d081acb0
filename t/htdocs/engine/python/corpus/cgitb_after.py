#!/usr/bin/python3
import cgitb
cgitb.enable(format="text")
print("Content-Type: text/plain")
print()
print("partial page")
raise ValueError("corpus-cgitb-after")
