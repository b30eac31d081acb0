#!/usr/bin/python3 -S
# -S: no site module, no site-packages on sys.path.
import sys
print("Content-Type: text/plain\n\nno_site=%s site=%s" % (sys.flags.no_site, "site" in sys.modules))
