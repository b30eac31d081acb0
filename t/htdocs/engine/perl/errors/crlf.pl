#!/usr/bin/perl
# a :crlf output layer: its header lines end in "\r\r\n" (t/58_engine_errors.t)
binmode STDOUT, ":crlf";
print "Content-Type: text/plain\r\n\r\nbody\n";
