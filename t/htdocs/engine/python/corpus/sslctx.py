#!/usr/bin/python3
# The common idiom that turns certificate checks off for the process
# (ssl._create_default_https_context), and urllib's opener installed: a
# new process verifies certificates and has no opener of a script's.
import ssl, urllib.request
print("Content-Type: text/plain\n")
print("verifies %s" % (ssl._create_default_https_context is ssl.create_default_context))
print("opener installed %s" % (urllib.request._opener is not None))
ssl._create_default_https_context = ssl._create_unverified_context
urllib.request.install_opener(urllib.request.build_opener(urllib.request.HTTPCookieProcessor()))
