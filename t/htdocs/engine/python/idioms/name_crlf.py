#!/usr/bin/python3
print("Content-Type: text/plain")
print("")
print("ran")
