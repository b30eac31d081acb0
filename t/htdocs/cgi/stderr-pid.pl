#!/usr/bin/perl
# ?TOKEN: one stderr line naming TOKEN; the body says which process ran it.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    my $tok = $ENV{QUERY_STRING} // '';
    print STDERR "stderr-pid says $tok\n";
    print "Content-Type: text/plain\n\npid=$$\n";
    CGIplus::finish();
}
