#!/usr/bin/perl
# A fixed seed: the same sequence every time.
srand(42);
print "Content-Type: text/plain\n\n", join(' ', map { int rand 1e9 } 1 .. 3), "\n";
