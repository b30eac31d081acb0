#!/usr/bin/python3
# Reached through idioms/where.py, a symbolic link: python3 puts the
# directory of the file the link resolves to first in sys.path (so its
# sibling module imports), and keeps the path as httpd named it in
# sys.argv[0] and __file__; mod_cgi runs it in the link's directory.
# t/58_engine_idioms.t.
import os
import sys

import where_sibling

root = os.environ["DOCUMENT_ROOT"]
print("Content-Type: text/plain\n")
for name, v in (("argv0", sys.argv[0]), ("__file__", __file__), ("path0", sys.path[0]),
                ("cwd", os.getcwd())):
    print(name, v.replace(root, "ROOT", 1))
print("sibling", where_sibling.NAME)
