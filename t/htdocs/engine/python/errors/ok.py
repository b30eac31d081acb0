#!/usr/bin/python3
import os
print("Content-Type: text/plain\n\nok %d" % os.getpid())
