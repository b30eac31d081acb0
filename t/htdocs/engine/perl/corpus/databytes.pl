#!/usr/bin/perl
# `use utf8` then `use bytes`: perl gives DATA no :utf8 (5 bytes).
use utf8;
use bytes;
print "Content-Type: text/plain; charset=utf-8\n\n";
my $line = <DATA>;
chomp $line;
print "length ", length($line), "\n";
__DATA__
café
