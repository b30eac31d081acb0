#!/usr/bin/perl
# stderr into the response, for this request only.
open STDERR, '>&STDOUT';
select STDERR; $| = 1;
select STDOUT; $| = 1;
print "Content-Type: text/plain\n\n";
print STDERR "stderr in the body\n";
print "out\n";
