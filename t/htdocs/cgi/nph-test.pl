#!/usr/bin/perl
# nph-: the script writes the whole HTTP response itself.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nX-Nph: yes\r\n\r\nok\n";
    CGIplus::finish();
}
