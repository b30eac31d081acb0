#!/usr/bin/python3
print("this is no header\n\nbody")
