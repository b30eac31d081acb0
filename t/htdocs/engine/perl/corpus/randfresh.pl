#!/usr/bin/perl
# rand without srand: seeded afresh in each CGI process, so never the
# sequence another script's srand(42) started.
my $r = int rand 1e9;
srand(42); my @seq = map { int rand 1e9 } 1 .. 8;
print "Content-Type: text/plain\n\nfrom a fixed seed: ", ((grep { $_ == $r } @seq) ? 'yes' : 'no'), "\n";
