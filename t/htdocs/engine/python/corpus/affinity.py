#!/usr/bin/python3
# Pinned to one CPU for its own run (os.sched_setaffinity), which the
# engine can undo: the next run has httpd's CPUs again, on the same engine.
import os
print("Content-Type: text/plain\n")
cpus = os.sched_getaffinity(0)
print("pinned %s" % (len(cpus) == 1 and (os.cpu_count() or 1) > 1))
os.sched_setaffinity(0, {min(cpus)})
