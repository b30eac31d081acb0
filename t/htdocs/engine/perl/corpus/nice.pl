#!/usr/bin/perl
# A script that lowers its own priority for a heavy page: a new process has
# httpd's. It cannot be raised again: the engine ends after this response
# (3712), and the next request's engine has it.
use POSIX ();
print "Content-Type: text/plain\n\n";
print "niceness 19 ", (getpriority(0, 0) == 19 ? 'yes' : 'no'), "\n";
POSIX::nice(19);
