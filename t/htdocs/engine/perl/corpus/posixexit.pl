#!/usr/bin/perl
# POSIX::_exit after a complete, flushed response.
use POSIX ();
$| = 1;
print "Content-Type: text/plain\n\nflushed before _exit\n";
POSIX::_exit(0);
