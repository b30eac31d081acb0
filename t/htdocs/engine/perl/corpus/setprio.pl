#!/usr/bin/perl
# setpriority to the value it has: nothing to put back, the engine goes on
# (the next runs answer from it; nice.pl's lowers it).
print "Content-Type: text/plain\n\n";
print "niceness 19 ", (getpriority(0, 0) == 19 ? 'yes' : 'no'), "\n";
setpriority(0, 0, getpriority(0, 0));
print "still ", getpriority(0, 0) == 19 ? 'lowered' : 'as started', "\n";
