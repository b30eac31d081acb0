#!/usr/bin/env python3
# hello_cgipy.py: an unmodified Python CGI hello using the cgi module, as CGI
# scripts are written (bench/engines runs it under mod_cgid and through the
# Python engine).
import cgi

form = cgi.FieldStorage()
print("Content-Type: text/plain")
print()
print("Hello from Python%s" % form.getfirst("x", ""))
