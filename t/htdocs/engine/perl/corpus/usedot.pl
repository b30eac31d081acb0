#!/usr/bin/perl
use lib '.';
use CorpusMod;
print "Content-Type: text/plain\n\n", CorpusMod::hi(), "\n";
