#!/usr/bin/python3
import subprocess, sys, os
print("Content-Type: text/plain\n\nbefore")
sys.stdout.flush()
subprocess.call(["echo", "from subprocess"])
os.system("echo from os.system")
print("after")
