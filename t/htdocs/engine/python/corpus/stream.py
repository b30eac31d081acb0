#!/usr/bin/python3
import sys
sys.stdout.write("Content-Type: text/plain\r\n\r\n")
sys.stdout.flush()
for i in range(3):
    sys.stdout.write("chunk %d\n" % i)
    sys.stdout.flush()
