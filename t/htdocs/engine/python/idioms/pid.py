#!/usr/bin/python3
import os
print("Content-Type: text/plain\n\n%d" % os.getpid())
