#!/usr/bin/python3 -O
# -O on the #! line: asserts and __debug__ off
print("Content-Type: text/plain")
print()
print("__debug__ %s" % __debug__)
try:
    assert False, "the assert ran"
    print("no assert")
except AssertionError as e:
    print(e)
