#!/usr/bin/perl
# Bareword handles that are STDOUT itself, left open: an alias of its glob
# and a handle on descriptor 1 (a process's exit closes them; the engine
# must not close its own descriptor 1).
*OUT = *STDOUT;
open(ONE, '>&=', 1) or die "fd 1: $!";
print OUT "Content-Type: text/plain\n\n";
print OUT "through an alias of STDOUT\n";
print ONE "through a handle on descriptor 1\n";
