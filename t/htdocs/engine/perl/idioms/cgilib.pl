#!/usr/bin/perl
# A perl 4 style script on cgi-lib.pl: every variable is a package global.
require "./cgi-lib-mini.pl";
&ReadParse;
print &PrintHeader;
foreach $k (sort keys %in) { print "$k=", join("|", split("\0", $in{$k})), "\n"; }
$visits++;
print "visits=$visits\n";
