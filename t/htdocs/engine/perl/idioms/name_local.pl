#!/usr/local/bin/perl
print "Content-Type: text/plain\n\nran\n";
