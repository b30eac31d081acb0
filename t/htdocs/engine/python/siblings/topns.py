#!/usr/bin/python3
# no sibns beside this one
try:
    import sibns.part
    found = sibns.part.WHO
except ImportError:
    found = "none"
print("Content-Type: text/plain\n")
print("sibns.part=%s" % found)
