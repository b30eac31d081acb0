#!/usr/bin/python3
import cgi
f = cgi.FieldStorage(keep_blank_values=True)
print("Content-Type: text/plain\n")
for k in sorted(f.keys()):
    print(k, repr(f.getlist(k)))
