#!/usr/bin/python2
print("Content-Type: text/plain")
print("")
print("ran")
