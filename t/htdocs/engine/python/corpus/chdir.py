#!/usr/bin/python3
import os
start = os.getcwd()
os.chdir("/tmp")
print("Content-Type: text/plain\n\nstart_is_dir=%s now=%s" % (start == os.path.dirname(os.path.abspath(__file__)), os.getcwd()))
