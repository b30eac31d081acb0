#!/usr/bin/perl
# $| = 1: each print goes out as it is made.
$| = 1;
print "Content-Type: text/plain\n\n";
for my $i (1 .. 3) { print "chunk $i\n" }
