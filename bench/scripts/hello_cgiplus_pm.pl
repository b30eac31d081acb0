#!/usr/bin/perl
# hello_cgiplus_pm.pl: the CGI.pm hello rewritten around CGIplus.pm, one
# pool per copy (bench/engines' memory figure: 50 such pools against one
# engine pool running 50 unmodified copies of hello_cgipm.pl).
use strict;
use warnings;
use CGI;
use CGIplus;

while (CGIplus::accept()) {
    my $q = CGI->new;
    print $q->header('text/plain'), "Hello from CGI.pm\n";
    CGIplus::finish();
}
