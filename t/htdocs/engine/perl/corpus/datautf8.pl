#!/usr/bin/perl
# `use utf8` where __DATA__ stands: perl reads DATA through :utf8, so a
# line of it is characters (4 for "café"), not bytes (5).
use utf8;
print "Content-Type: text/plain; charset=utf-8\n\n";
my $line = <DATA>;
chomp $line;
print "length ", length($line), "\n";
print "layers ", join(',', grep { $_ eq 'utf8' } PerlIO::get_layers(DATA)), "\n";
__DATA__
café
