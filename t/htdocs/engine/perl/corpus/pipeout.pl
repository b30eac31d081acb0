#!/usr/bin/perl
# A pipe to a program whose stdout is the response.
print "Content-Type: text/plain\n\n";
open my $p, '|-', 'tr', 'a-z', 'A-Z' or die "pipe: $!";
print $p "through tr\n";
close $p;
print "after pipe\n";
