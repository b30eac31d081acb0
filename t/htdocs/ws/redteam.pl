#!/usr/bin/perl
# redteam.pl (t/47_security_redteam.t): a hostile WebSocket worker. Each
# message "probe QUERY" is answered with t/htdocs/hostile/redteam_lib.pl's
# report on QUERY (its stderr lines posing as the runner's included).
use strict;
use warnings;
use FindBin ();
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;
do "$FindBin::Bin/../hostile/redteam_lib.pl" or die "redteam_lib.pl: $@ $!";

my $ws = CGIplus::WebSocket->new;
while (my $ev = $ws->next_event) {
    if ($ev->{type} eq 'open') {
        $ws->accept($ev->{conn});
    } elsif ($ev->{type} eq 'message' && $ev->{data} =~ /^probe (.*)$/s) {
        $ws->send($ev->{conn}, redteam_report($1));
    }
}
