#!/usr/bin/python3
import os, sys
os.write(sys.stdout.fileno(), b"Content-Type: text/plain\n\nraw write\n")
