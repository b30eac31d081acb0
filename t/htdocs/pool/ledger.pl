#!/usr/bin/perl
# Records each request's body in a ledger file, then (?sleep=N) waits before
# answering, so the runner can be killed while the request is on its worker
# (t/51_no_rerun.t: a request never runs twice). Query: ledger=PATH&sleep=N.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

$| = 1;
while (CGIplus::accept()) {
    my %q = map { /^([^=]*)=(.*)$/ ? ($1, $2) : () } split /&/, $ENV{QUERY_STRING} // '';
    my $body = '';
    read(STDIN, $body, $ENV{CONTENT_LENGTH} || 0);
    if ($q{ledger}) {
        open my $l, '>>', $q{ledger} or die "$q{ledger}: $!";
        print $l "$$ $body\n";
        close $l;
    }
    sleep $q{sleep} if $q{sleep};
    print "Content-Type: text/plain\n\nrecorded $body\n";
    CGIplus::finish();
}
