#!/usr/bin/python3
# A hard limit lowered (open files: 1000), which an unprivileged process
# cannot raise again: the engine ends after this response (3710), as a CGI
# process with its limits, and the next request has the limits again.
import resource
print("Content-Type: text/plain\n")
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
print("nofile hard lowered %s" % (hard == 1000))
if hard == resource.RLIM_INFINITY or hard > 1000:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 1000), 1000))
