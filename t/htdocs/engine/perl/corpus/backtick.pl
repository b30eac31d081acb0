#!/usr/bin/perl
my $out = `echo from backticks; echo to-stderr-corpus 1>&2`;
print "Content-Type: text/plain\n\ngot: $out", "status=$?\n";
