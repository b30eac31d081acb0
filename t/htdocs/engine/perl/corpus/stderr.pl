#!/usr/bin/perl
print STDERR "corpus-stderr-line\n";
print "Content-Type: text/plain\n\nok\n";
