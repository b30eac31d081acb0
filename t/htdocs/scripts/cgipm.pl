#!/usr/bin/perl
# A CGI.pm-style script made persistent with CGIplus.pm: the usual
# CGI->new / param / header calls, inside the accept loop.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;
use CGI;

my $n = 0;
while (CGIplus::accept()) {
    my $q = CGI->new;
    $n++;
    print $q->header(-type => 'text/plain', -status => '200 OK', -X_Served => $n);
    my @names = sort $q->param;
    print "method=", $q->request_method, "\n";
    print "params=", join(',', map { "$_:" . join('|', $q->param($_)) } @names), "\n";
    print "url_param=", ($q->url_param('u') // ''), "\n";
    print "pid=$$\n";
    CGIplus::finish();
}
