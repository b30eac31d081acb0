#!/usr/bin/python3
# cgitb.enable(): the traceback page goes to the client.
import cgitb
cgitb.enable()
def fail(x):
    return 1 / x
fail(0)
