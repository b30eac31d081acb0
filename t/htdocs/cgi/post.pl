#!/usr/bin/perl
# Echoes the body: "len=N" then the bytes.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    my $body = '';
    binmode STDIN;
    1 while read(STDIN, $body, 65536, length $body);
    print "Content-Type: application/octet-stream\n\nlen=", length($body), "\n", $body;
    CGIplus::finish();
}
