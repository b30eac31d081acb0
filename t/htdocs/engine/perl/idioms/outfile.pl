#!/usr/bin/perl
# STDOUT reopened onto a file after the response began (the directory is
# the query): the rest goes there, and the request still ends.
print "Content-Type: text/plain\n\n";
print "before\n";
$| = 1;
open(STDOUT, '>>', "$ENV{QUERY_STRING}/stdout.log") or die "stdout: $!";
print "into the file\n";
