#!/usr/bin/perl
# refuse.pl (t/70): with ?bad, six WebSocket calls the runner would refuse;
# each must return undef with $! EINVAL and send nothing. Then it refuses
# the upgrade 400, saying how many did (X-Invalid). Otherwise it echoes.
use strict;
use warnings;
use Errno ();
use FindBin ();
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

my $ws = CGIplus::WebSocket->new;
while (my $ev = $ws->next_event) {
    my $c = $ev->{conn};
    if ($ev->{type} eq 'open' && ($ev->{env}{QUERY_STRING} // '') eq 'bad') {
        my $n = 0;
        for my $call (sub { $ws->refuse($c, 99) },
                      sub { $ws->refuse($c, 403, ['Bad Name', 'x']) },
                      sub { $ws->refuse($c, 403, ['Status', '200 OK']) },
                      sub { $ws->refuse($c, 403, ['X-A', "a\nb"]) },
                      sub { $ws->close($c, 1005) },
                      sub { $ws->close($c, 1000, 'x' x 124) }) {
            $! = 0;
            $n++ if !defined $call->() && $! == Errno::EINVAL;
        }
        $ws->refuse($c, 400, ['X-Invalid', $n], "checked\n");
    } elsif ($ev->{type} eq 'open') {
        $ws->accept($c);
    } elsif ($ev->{type} eq 'message') {
        $ws->send($c, $ev->{data}, $ev->{binary});
    }
}
