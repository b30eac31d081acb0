#!/usr/bin/python3
# Descriptor 2 pointed at the response (stderr into the page, a child's too).
import os, sys, subprocess
print("Content-Type: text/plain\n")
sys.stdout.flush()
os.dup2(1, 2)
sys.stderr.write("stderr in the page\n")
sys.stderr.flush()
subprocess.call(["sh", "-c", "echo child stderr >&2"])
