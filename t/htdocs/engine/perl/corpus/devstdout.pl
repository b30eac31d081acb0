#!/usr/bin/perl
open(my $o, '>', '/dev/stdout') or do { print "Content-Type: text/plain\n\nno /dev/stdout: $!\n"; exit };
print $o "Content-Type: text/plain\n\nvia /dev/stdout\n";
close $o;
