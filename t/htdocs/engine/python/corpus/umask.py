#!/usr/bin/python3
import os
u = os.umask(0o077)
print("Content-Type: text/plain\n\numask=%04o" % u)
