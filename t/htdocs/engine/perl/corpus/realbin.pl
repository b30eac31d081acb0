#!/usr/bin/perl
use FindBin qw($Bin $Script $RealBin);
print "Content-Type: text/plain\n\nscript=$Script bin_is_realbin=", ($Bin eq $RealBin ? 1 : 0), " has_corpus=", ($Bin =~ m{/corpus\z} ? 1 : 0), "\n";
