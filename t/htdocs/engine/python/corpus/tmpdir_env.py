#!/usr/bin/python3
# A TMPDIR of the request's (SetEnv TMPDIR /var/tmp in its scope):
# tempfile takes it, as in a new process, whichever TMPDIR the engine's
# other runs had (tmpdir.py's, before it, none: /tmp).
import os, tempfile
print("Content-Type: text/plain\n")
print("TMPDIR %s, tempdir %s" % (os.environ.get("TMPDIR"), tempfile.gettempdir()))
