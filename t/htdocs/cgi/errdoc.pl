#!/usr/bin/perl
# An ErrorDocument 404 (t/39): what the error request says and how much
# of a body it can read (the failed request's is gone).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    binmode STDIN;
    my $got = 0;
    while (read(STDIN, my $buf, 4096)) { $got += length $buf }
    print "Content-Type: text/plain\n\nstatus=", $ENV{REDIRECT_STATUS} // '-',
        " method=$ENV{REQUEST_METHOD} read=$got\n";
    CGIplus::finish();
}
