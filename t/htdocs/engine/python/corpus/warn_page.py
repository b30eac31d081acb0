#!/usr/bin/python3
# Warnings shown in the page: a showwarning of its own.
import warnings, sys
warnings.showwarning = lambda message, category, filename, lineno, file=None, line=None: print("WARNING: %s" % message)
print("Content-Type: text/plain\n")
warnings.warn("corpus-page-warning")
