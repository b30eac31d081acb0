#!/usr/bin/python3
# A soft resource limit lowered for the script itself (a bound on its own
# open files): a new process has the limit it was started with.
import resource
print("Content-Type: text/plain\n")
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
print("nofile soft lowered %s" % (soft == 64))
resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
print("core soft lowered %s" % (soft == 0 and hard != 0))
if hard != 0:
    resource.prlimit(0, resource.RLIMIT_CORE, (0, hard))
