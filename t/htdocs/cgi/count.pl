#!/usr/bin/perl
# Reads the body in pieces; answers its length and MD5 (never holds it).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

use Digest::MD5;
while (CGIplus::accept()) {
    my ($n, $buf, $got) = (0, '');
    my $md5 = Digest::MD5->new;
    binmode STDIN;
    while (($got = read(STDIN, $buf, 65536)) && $got > 0) {
        $n += $got;
        $md5->add($buf);
    }
    print "Content-Type: text/plain\n\nlen=$n md5=", $md5->hexdigest, " pid=$$\n";
    CGIplus::finish();
}
