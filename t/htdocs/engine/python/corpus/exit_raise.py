#!/usr/bin/python3
print("Content-Type: text/plain\n\nbefore")
raise SystemExit(2)
