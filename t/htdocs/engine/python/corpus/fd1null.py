#!/usr/bin/python3
# Descriptor 1 sent to /dev/null for a noisy child, never put back.
import os, sys, subprocess
print("Content-Type: text/plain\n\nbefore the child")
sys.stdout.flush()
null = os.open(os.devnull, os.O_WRONLY)
os.dup2(null, 1)
subprocess.call(["echo", "silenced"])
