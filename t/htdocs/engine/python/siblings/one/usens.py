#!/usr/bin/python3
# a namespace package beside it
import sibns.part
print("Content-Type: text/plain\n")
print("sibns.part=%s" % sibns.part.WHO)
