#!/usr/bin/python3
# its helper reads its globals through __main__
import os
TITLE = "title for " + os.environ.get("QUERY_STRING", "")
import mainref
print("Content-Type: text/plain\n")
print(mainref.title())
print(mainref.where())
