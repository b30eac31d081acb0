#!/usr/bin/perl
# a malformed header (t/58_engine_errors.t)
print "this is no header\n\nbody\n";
