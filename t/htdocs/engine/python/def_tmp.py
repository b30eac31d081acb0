#!/usr/bin/env python3
# Opens a temporary file kept in a global, and defines a function (whose
# __globals__ refers back to that namespace: a cycle), then ends well
# (t/58_engine_py_fail_fds.t): the file must be closed once the request is
# over, as it is when a CGI process exits.
import tempfile

spool = tempfile.TemporaryFile()
spool.write(b"kept in a global")


def answer():
    print("Content-Type: text/plain\n\nok")


answer()
