#!/usr/bin/perl
# A script not named nph- that writes an HTTP status line first.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "HTTP/1.1 203 Non-Authoritative Information\r\nContent-Type: text/plain\r\n\r\nedge\n";
    CGIplus::finish();
}
