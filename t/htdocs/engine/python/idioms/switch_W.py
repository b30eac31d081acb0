#!/usr/bin/python3 -W error::UserWarning
# a warning filter on the #! line
import warnings
print("Content-Type: text/plain")
print()
try:
    warnings.warn("careful")
    print("the warning passed")
except UserWarning as e:
    print("the warning raised: %s" % e)
