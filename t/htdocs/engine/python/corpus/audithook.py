#!/usr/bin/python3
# An audit hook that refuses os.listdir from now on (a sandbox of the
# script's own): its process's life, not the next script's.
import os, sys


def refuse(event, args):
    if event == "os.listdir":
        raise PermissionError("corpus audit hook: no listing")


sys.addaudithook(refuse)
try:
    os.listdir(".")
    listed = "listed"
except PermissionError as e:
    listed = str(e)
print("Content-Type: text/plain\n\n%s" % listed)
