#!/usr/bin/python3
# tempfile.tempdir set by the script for its own files (its documented
# way): a new process finds the directory from TMPDIR, TEMP, TMP, /tmp.
import tempfile
print("Content-Type: text/plain\n")
print("tempdir %s" % tempfile.gettempdir())
tempfile.tempdir = "/nonexistent/corpus-tmpdir"
print("set to %s" % tempfile.gettempdir())
