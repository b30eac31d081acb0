#!/usr/bin/perl
my $u = sprintf '%04o', umask;
umask 077;
print "Content-Type: text/plain\n\numask=$u\n";
