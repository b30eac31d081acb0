#!/usr/bin/perl
require "./rlib.pl";
print "Content-Type: text/plain\n\n", rlib_greet("q=$ENV{QUERY_STRING}"), "\n";
