#!/usr/bin/perl
# ws_chat.pl: a chat room in Perl. Every message goes to every member (all
# connections of the pool, whichever worker holds them) as "name: text";
# the name is ?name=... of the URL; joins and leaves are said too.
use strict;
use warnings;
use FindBin ();
use lib "$FindBin::Bin/../../lib/perl";
use CGIplus;

my $ws = CGIplus::WebSocket->new;
my %name; # connection id -> name, for this worker's members
while (my $ev = $ws->next_event) {
    my $c = $ev->{conn};
    if ($ev->{type} eq 'open') {
        my ($n) = ($ev->{env}{QUERY_STRING} // '') =~ /(?:^|&)name=([A-Za-z0-9]{1,31})/;
        $name{$c} = $n // 'guest';
        my $offered = $ev->{env}{HTTP_SEC_WEBSOCKET_PROTOCOL} // '';
        $ws->accept($c, $offered =~ /\bchat\b/ ? 'chat' : undef);
        $ws->broadcast("* $name{$c} joined");
    } elsif ($ev->{type} eq 'message') {
        $ws->broadcast("$name{$c}: $ev->{data}") unless $ev->{binary};
    } elsif ($ev->{type} eq 'close') {
        my $n = delete $name{$c} // next;
        $ws->broadcast("* $n left", 0, $c);
    }
}
