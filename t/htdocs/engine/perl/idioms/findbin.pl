#!/usr/bin/perl
# FindBin names the script's own directory, and `use lib` from it works.
use strict; use warnings;
use FindBin qw($Bin $Script);
use lib "$FindBin::Bin/lib";
use IdiomMod;
print "Content-Type: text/plain\n\n";
print "Bin=$Bin Script=$Script ", IdiomMod::hi(), "\n";
