#!/usr/bin/perl
# hello.pl: the smallest CGIplus script; runs persistently or as plain CGI.
use strict;
use warnings;
use FindBin ();
use lib "$FindBin::RealBin/../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\n\nHello from CGIplus\n";
    CGIplus::finish();
}
