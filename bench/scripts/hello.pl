#!/usr/bin/perl
# hello.pl: the bench's persistent Perl hello (lib/perl/CGIplus.pm).
# Answers a body of QUERY_STRING bytes of 'x' (0 to 1 MiB).
use strict;
use warnings;
use FindBin ();
use lib "$FindBin::RealBin/../../lib/perl";
use CGIplus;

my %bodies;
binmode STDOUT;
while (CGIplus::accept()) {
    my $n = ($ENV{QUERY_STRING} // '') =~ /^(\d+)/ ? $1 : 0;
    $n = 1 << 20 if $n > 1 << 20;
    print "Content-Type: text/plain\n\n", ($bodies{$n} //= 'x' x $n);
    CGIplus::finish();
}
