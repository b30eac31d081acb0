#!/usr/bin/python3
print("Status: 404 Not Found")
print("Content-Type: text/plain")
print("Set-Cookie: a=1")
print("Set-Cookie: b=2")
print()
print("missing")
