#!/usr/bin/perl
# The environment as sorted NAME=value lines (markers by name only).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\n\n";
    for my $k (sort keys %ENV) {
        my $v = $k =~ /^CGIPLUS(EOF|ESC|EOT)$/ ? '(set)' : $ENV{$k};
        $v =~ s/\n/ /g;
        print "$k=$v\n";
    }
    CGIplus::finish();
}
