#!/usr/bin/perl
# A cache keyed by time, in an uninitialized global.
$cache{stamp} ||= 'first-run';
print "Content-Type: text/plain\n\ncache=$cache{stamp}\n";
$cache{stamp} = 'later-run';
