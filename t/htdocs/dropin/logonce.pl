#!/usr/bin/perl
# Sends a LOG callout with the query string (t/3e_cgi_scripts.t): the line
# must be logged once.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    my $ans = CGIplus::callout("LOG: logonce $ENV{QUERY_STRING}") // 'undef';
    print "Content-Type: text/plain\n\nanswer=$ans\n";
    CGIplus::finish();
}
