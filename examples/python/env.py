#!/usr/bin/env python3
"""env.py: the request's environment as sorted NAME=value lines. The
CGIPLUS* markers are shown as names only: printing the end sentinel would
end the response early."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib", "python"))
import cgiplus  # noqa: E402

HIDDEN = ("CGIPLUSEOF", "CGIPLUSESC", "CGIPLUSEOT")

for env in cgiplus.requests():
    lines = sorted("%s=%s" % (k, "(hidden)" if k in HIDDEN else v)
                   for k, v in env.items())
    sys.stdout.write("Content-Type: text/plain\n\n")
    sys.stdout.write("".join(line + "\n" for line in lines))
