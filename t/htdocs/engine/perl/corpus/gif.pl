#!/usr/bin/perl
# binmode STDOUT and a binary image (a 1x1 GIF, CR LF and high bytes in it).
binmode STDOUT;
my $gif = pack 'H*', '47494638396101000100800000ffffff0d0a0000002c00000000010001000002024401003b';
print "Content-Type: image/gif\nContent-Length: ", length($gif), "\n\n", $gif;
