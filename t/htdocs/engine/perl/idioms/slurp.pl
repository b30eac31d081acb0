#!/usr/bin/perl
# A slurp of STDIN: '' for an empty body, as perl's own handle gives it.
use strict; use warnings;
my $body = do { local $/; <STDIN> };
print "Content-Type: text/plain\n\n";
print defined $body ? "body=[$body]\n" : "body undef\n";
