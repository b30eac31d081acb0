#!/usr/bin/perl
# $, and $\ set globally.
$, = '-'; $\ = "!\n";
print "Content-Type: text/plain\n\n";
print 'a', 'b';
