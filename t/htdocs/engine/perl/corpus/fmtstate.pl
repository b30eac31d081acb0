#!/usr/bin/perl
# STDOUT's format names and page length, set and left without a write: a
# new process's STDOUT has perl's (STDOUT, STDOUT_TOP, 60).
print "Content-Type: text/plain\n\n";
print "format $~ top $^ lines $=\n";
$~ = 'CORPUS_NONE';
$^ = 'CORPUS_NONE_TOP';
$= = 10;
