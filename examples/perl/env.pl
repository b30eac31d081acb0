#!/usr/bin/perl
# env.pl: the request's environment as sorted NAME=value lines. The CGIPLUS*
# markers are shown as names only: printing the end sentinel would end the
# response early.
use strict;
use warnings;
use FindBin ();
use lib "$FindBin::RealBin/../../lib/perl";
use CGIplus;

my %hidden = map { $_ => 1 } qw(CGIPLUSEOF CGIPLUSESC CGIPLUSEOT);
while (CGIplus::accept()) {
    print "Content-Type: text/plain\n\n";
    print "$_\n" for sort map { "$_=" . ($hidden{$_} ? '(hidden)' : $ENV{$_}) } keys %ENV;
    CGIplus::finish();
}
