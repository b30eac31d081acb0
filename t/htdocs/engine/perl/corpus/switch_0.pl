#!/usr/bin/perl -0777
# -0777: <STDIN> reads the whole body as one record ($/ undef).
my @r = <STDIN>;
print "Content-Type: text/plain\n\n", scalar(@r), " record(s)\n";
