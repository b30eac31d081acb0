#!/usr/bin/env python3
"""hello.py: the smallest CGIplus script; runs persistently or as plain CGI."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

for env in cgiplus.requests():
    sys.stdout.write("Content-Type: text/plain\n\nHello from CGIplus\n")
