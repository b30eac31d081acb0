#!/usr/bin/python3 -u
# unbuffered (-u on the #! line): a child writes after the header printed
import os
print("Content-Type: text/plain")
print()
print("before the child")
os.system("echo from the child")
print("after the child")
