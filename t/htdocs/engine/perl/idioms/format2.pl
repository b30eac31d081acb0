#!/usr/bin/perl
# Another script's format STDOUT, without a page top.
our ($word);
format STDOUT =
OTHER: @<<<<<<<<<
$word
.
print "Content-Type: text/plain\n\n";
$word = 'second'; write;
