#!/usr/bin/python3
# no sibhelp.py beside this one: python3 finds none (those of one/ and two/
# are theirs)
try:
    import sibhelp
    found = sibhelp.WHO
except ImportError:
    found = "none"
print("Content-Type: text/plain\n")
print("sibhelp=%s" % found)
