#!/usr/bin/python3
# The cgi module's documented limit on a POST, set by the script at run time.
import cgi
cgi.maxlen = 16
try:
    form = cgi.FieldStorage()
    got = "a=%s" % form.getfirst("a", "-")
except ValueError as e:
    got = "refused: %s" % e
print("Content-Type: text/plain\n\nmaxlen_set %s" % got)
