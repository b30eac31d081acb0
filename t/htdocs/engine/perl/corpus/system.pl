#!/usr/bin/perl
# system() writes to the inherited stdout, between buffered prints.
print "Content-Type: text/plain\n\nbefore\n";
system('echo', 'from system');
print "after\n";
