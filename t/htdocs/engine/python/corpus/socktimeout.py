#!/usr/bin/python3
# socket.setdefaulttimeout: for the script's own connections (urllib's).
import socket
was = socket.getdefaulttimeout()
socket.setdefaulttimeout(5)
print("Content-Type: text/plain\n\ndefault timeout was %r" % (was,))
