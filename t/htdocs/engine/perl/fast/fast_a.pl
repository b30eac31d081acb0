#!/usr/bin/perl
# A CGI::Fast program (munin-cgi-graph's loop) run as a CGI script:
# CGI::Fast serves the one request, then its loop ends.
use strict;
use warnings;
use CGI::Fast;

my $served = 0;
while (my $q = CGI::Fast->new) {
    $served++;
    my $x = $q->param('x') // '-';
    print $q->header(-type => 'text/plain'), "a x=$x served=$served pid=$$\n";
}
