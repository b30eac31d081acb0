#!/usr/bin/perl
# Body and exit edge cases of a persistent worker (t/14_script_exit.t):
#   ?die    header and part of the body, flushed, then exit before the sentinel
#   ?short  reads only 10 bytes of its body and answers them
#   (else)  echoes its whole body; reports its pid
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

$| = 1;
while (CGIplus::accept()) {
    my $q = $ENV{QUERY_STRING} // '';
    if ($q eq 'die') {
        print "Content-Type: text/plain\n\npartial-";
        select(undef, undef, undef, 0.2);
        exit 3;
    }
    my $want = $q eq 'short' ? 10 : $ENV{CONTENT_LENGTH};
    my $body = '';
    while (length($body) < $want) {
        my $n = read(STDIN, $body, $want - length($body), length($body));
        last unless $n;
    }
    print "Content-Type: application/octet-stream\nX-Pid: $$\n\n$body";
    CGIplus::finish();
}
