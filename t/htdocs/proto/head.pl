#!/usr/bin/perl
# HEAD: ?body=N writes N bytes of body, ?slow=S sleeps S seconds between the
# header and the body.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

$| = 1;
while (CGIplus::accept()) {
    my %q = map { split /=/, $_, 2 } grep { /=/ } split /&/, $ENV{QUERY_STRING} // '';
    print "Content-Type: text/plain\nX-Method: $ENV{REQUEST_METHOD}\n\n";
    select(undef, undef, undef, $q{slow}) if $q{slow};
    print 'b' x ($q{body} // 0);
    CGIplus::finish();
}
