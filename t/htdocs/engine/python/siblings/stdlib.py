#!/usr/bin/python3
# the standard library's colorsys: none beside this one
import colorsys
print("Content-Type: text/plain\n")
print("colorsys=%s" % getattr(colorsys, "WHO", "the standard library's"))
