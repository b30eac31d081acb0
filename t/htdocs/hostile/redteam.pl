#!/usr/bin/perl
# A CGIplus worker (the Perl library), or once as plain CGI (a
# CGIplusCompat scope, the Perl engine, mod_cgid): redteam_lib.pl.
use strict;
use warnings;
(my $dir = __FILE__) =~ s{[^/]*$}{};
do "${dir}redteam_lib.pl" or die "redteam_lib.pl: $@ $!";
if ($ENV{CGIPLUSEOF}) {
    require lib;
    lib->import("$dir../../../lib/perl");
    require CGIplus;
    while (CGIplus::accept()) {
        print "Content-Type: text/plain\n\n", redteam_report($ENV{QUERY_STRING});
        CGIplus::finish();
    }
} else {
    print "Content-Type: text/plain\n\n", redteam_report($ENV{QUERY_STRING});
}
