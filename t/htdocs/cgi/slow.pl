#!/usr/bin/perl
# Writes nothing for QUERY_STRING seconds, then a response.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    my $n = ($ENV{QUERY_STRING} // '') =~ /^(\d+)$/ ? $1 : 1;
    sleep $n;
    print "Content-Type: text/plain\n\nslept $n\n";
    CGIplus::finish();
}
