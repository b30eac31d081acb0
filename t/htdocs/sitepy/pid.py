#!/usr/bin/python3
# Both sites' Python script (t/47_security_engine_sites.t): its engine's pid.
import os
print("Content-Type: text/plain\n\npid=%d" % os.getpid())
