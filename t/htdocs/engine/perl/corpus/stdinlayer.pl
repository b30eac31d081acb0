#!/usr/bin/perl
# A layer pushed on STDIN and left there; the body read through it.
binmode STDIN, ':crlf';
my @lines = <STDIN>;
print "Content-Type: text/plain\n\n", scalar(@lines), " lines: ", join('|', map { s/\n/\\n/r =~ s/\r/\\r/r } @lines), "\n";
