#!/usr/bin/perl
use POSIX qw(strftime);
print "Content-Type: text/plain\n\n", strftime('%H', localtime(0)), " ", strftime('%H', gmtime(0)), "\n";
