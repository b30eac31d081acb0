#!/usr/bin/python3
print("Content-Type: text/plain\n\nbefore")
exit()
print("not reached")
