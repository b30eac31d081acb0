#!/usr/bin/perl
select((select(STDOUT), $| = 1)[0]);
print "Content-Type: text/plain\n\n";
print STDOUT "autoflushed\n";
syswrite(STDOUT, "syswrite\n");
print "after\n";
