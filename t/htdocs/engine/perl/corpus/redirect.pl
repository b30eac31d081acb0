#!/usr/bin/perl
# STDOUT redirected to a file and restored from a saved dup.
open my $save, '>&', \*STDOUT or die "dup: $!";
open STDOUT, '>', '/dev/null' or die "null: $!";
print "lost\n";
close STDOUT;
open STDOUT, '>&', $save or die "restore: $!";
print "Content-Type: text/plain\n\nback\n";
