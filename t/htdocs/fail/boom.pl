#!/usr/bin/perl
# CGIplus.pm and a script that dies (t/57_lib_failure.t).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

$| = 0;
while (CGIplus::accept()) {
    my $q = $ENV{QUERY_STRING} // '';
    die "failure-marker $q\n" if $q =~ /^boom/;
    print "Content-Type: text/plain\n\n";
    if ($q =~ /^late/) {
        print "partial\n";
        STDOUT->flush;
        die "failure-marker $q\n";
    }
    print "ok pid=$$ q=$q\n";
    CGIplus::finish();
}
