#!/usr/bin/env python3
# Opens a temporary file, as cgi.FieldStorage does for a body, then fails
# (t/58_engine_py_fail_fds.t): the file must be closed once the request is
# over, as it is when a CGI process exits.
import tempfile

spool = tempfile.TemporaryFile()
spool.write(b"part of a body")
raise RuntimeError("failed after opening a temporary file")
