#!/usr/bin/perl
# An ordinary CGI.pm script, written for plain CGI and not changed: under
# CGIplusEngine perl one persistent perl compiles it once and runs it again
# for each request (the pid stays the same; as plain CGI it would not).
use strict;
use warnings;
use CGI;

my $q = CGI->new;
(my $name = $q->param('name') // 'world') =~ s/[^\w -]//g;
print $q->header(-type => 'text/plain', -charset => 'utf-8');
print "Hello, $name, from an unmodified CGI.pm script\n";
print "pid=$$\n";
