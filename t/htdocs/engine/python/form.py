#!/usr/bin/env python3
# An unmodified Python CGI form script with cgi.FieldStorage: fields and a
# file upload, by GET or POST (t/58_engine_python.t runs it under the
# Python engine and under mod_cgid).
import cgi
import hashlib
import os

form = cgi.FieldStorage()
print("Content-Type: text/plain; charset=utf-8")
print()
print("method=%s" % os.environ.get("REQUEST_METHOD", ""))
for name in sorted(form.keys()):
    if name == "file":
        continue
    print("param %s=%s" % (name, ",".join(form.getlist(name))))
if "file" in form and form["file"].filename:
    data = form["file"].file.read()
    print("file name=%s size=%d md5=%s" % (form["file"].filename, len(data),
                                           hashlib.md5(data).hexdigest()))
    print("file type=%s" % form["file"].type)
