#!/usr/bin/python3
import warnings
print("Content-Type: text/plain\n")
warnings.warn("corpus-plain-warning")
print("done")
