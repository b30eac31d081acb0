#!/usr/bin/perl -CS
# -CS: STDOUT is :utf8, e-acute goes out as two bytes.
print "Content-Type: text/plain; charset=utf-8\n\n", chr(0xE9), "\n";
