#!/usr/bin/python3
# No flush before the child: its line comes before the header (a 500 under CGI).
import subprocess
print("Content-Type: text/plain\n\nbefore")
subprocess.call(["echo", "from subprocess"])
