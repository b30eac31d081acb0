#!/usr/bin/perl
# Status: whatever the query string says (099, 600, abc...): httpd's
# scanner does not refuse an invalid one by itself.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    my $s = $ENV{QUERY_STRING} // '';
    $s =~ s/%20/ /g;
    print "Status: $s\nContent-Type: text/plain\n\nstatus body\n";
    CGIplus::finish();
}
