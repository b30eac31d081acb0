#!/usr/bin/python3
# A warning from a module's function, shown once per process by the default
# filters: in each CGI process of the script, so at each run here.
import warnings
import corpus_warner
print("Content-Type: text/plain\n")
warnings.showwarning = lambda message, category, filename, lineno, file=None, line=None: print("WARNING: %s" % message)
print(corpus_warner.old_api())
