#!/usr/bin/perl
# An nph- script that writes a CGI header instead of a status line.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\r\n\r\nnot an HTTP response\n";
    CGIplus::finish();
}
