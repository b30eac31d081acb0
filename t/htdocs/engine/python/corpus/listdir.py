#!/usr/bin/python3
# Lists its own directory (audithook.py ran before it).
import os
print("Content-Type: text/plain\n\nfiles: %d" % (len(os.listdir(".")) > 0))
