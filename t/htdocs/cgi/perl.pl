#!/usr/bin/perl
# The plainest script: a header and one line.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Content-Type: text/plain\n\nperl cgi\n";
    CGIplus::finish();
}
