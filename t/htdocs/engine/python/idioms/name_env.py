#!/usr/bin/env python3-nosuch
print("Content-Type: text/plain")
print("")
print("ran")
