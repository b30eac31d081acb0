#!/usr/bin/python3
# printenv, as old CGI examples have it: every variable with its value,
# then a child's environment (t/58_engine_idioms.t).
import os
import subprocess
import sys

print("Content-Type: text/plain\n")
for k in sorted(os.environ):
    print("%s=%s" % (k, os.environ[k]))
print("--child")
sys.stdout.flush()
subprocess.run(["env"])
print("--end")
