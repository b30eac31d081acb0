#!/usr/bin/python3
# A script that lowers its own priority for a heavy page (os.nice) and pins
# itself to one CPU: a new process has httpd's priority and CPUs. The
# priority cannot be raised again: the engine ends after this response
# (3711), and the next request's engine has them.
import os
print("Content-Type: text/plain\n")
print("niceness 19 %s" % (os.getpriority(os.PRIO_PROCESS, 0) == 19))
cpus = os.sched_getaffinity(0)
print("pinned %s" % (len(cpus) == 1 and (os.cpu_count() or 1) > 1))
os.sched_setaffinity(0, {min(cpus)})
os.nice(19)
