#!/usr/bin/perl
print "Content-Type: text/plain\n\nok $$\n";
