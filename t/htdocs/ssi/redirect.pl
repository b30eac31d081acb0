#!/usr/bin/perl
# An absolute redirect: mod_include shows it as a link.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    print "Location: http://example.invalid/elsewhere\n\n";
    CGIplus::finish();
}
