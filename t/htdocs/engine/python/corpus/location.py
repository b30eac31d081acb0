#!/usr/bin/python3
# A local redirect (a path): httpd serves the other URL itself.
import os
print("Location: " + os.environ["SCRIPT_NAME"].rsplit("/", 1)[0] + "/unicode_out.py\n")
