#!/usr/bin/python3
import warnings
warnings.warn("corpus-userwarning")
print("Content-Type: text/plain\n\nwarned")
