#!/usr/bin/python3
# the colorsys beside it, not the standard library's (sys.path[0] first)
import colorsys
print("Content-Type: text/plain\n")
print("colorsys=%s" % getattr(colorsys, "WHO", "the standard library's"))
