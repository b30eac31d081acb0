#!/usr/bin/python3
# a warning, which PYTHONWARNINGS may make an error
import warnings
print("Content-Type: text/plain")
print()
try:
    warnings.warn("careful")
    print("the warning passed")
except UserWarning as e:
    print("the warning raised: %s" % e)
