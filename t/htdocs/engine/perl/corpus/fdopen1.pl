#!/usr/bin/perl
# A handle on descriptor 1 itself, closed at the end.
open(my $out, '>&=', 1) or die "fd 1: $!";
print $out "Content-Type: text/plain\n\nthrough >&=1\n";
close $out;
