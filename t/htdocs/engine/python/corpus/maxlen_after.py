#!/usr/bin/python3
# The cgi module at its defaults: no limit on a POST.
import cgi
try:
    form = cgi.FieldStorage()
    got = "long=%d bytes" % len(form.getfirst("long", ""))
except ValueError as e:
    got = "refused: %s" % e
print("Content-Type: text/plain\n\nmaxlen=%r %s" % (cgi.maxlen, got))
