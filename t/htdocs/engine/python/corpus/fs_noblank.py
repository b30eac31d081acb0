#!/usr/bin/python3
import cgi
f = cgi.FieldStorage()
print("Content-Type: text/plain\n")
print(sorted(f.keys()), f.getfirst("b", "none"))
