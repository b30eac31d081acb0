#!/usr/bin/perl
# ws_echo.pl: a WebSocket echo in Perl. Each message goes back to its
# sender, text or binary as it came; one worker holds many connections.
use strict;
use warnings;
use FindBin ();
use lib "$FindBin::Bin/../../lib/perl";
use CGIplus;

my $ws = CGIplus::WebSocket->new;
while (my $ev = $ws->next_event) {
    if ($ev->{type} eq 'open') {
        $ws->accept($ev->{conn});
    } elsif ($ev->{type} eq 'message') {
        $ws->send($ev->{conn}, $ev->{data}, $ev->{binary});
    }
}
