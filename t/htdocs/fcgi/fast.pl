#!/usr/bin/perl
# fast.pl: a Perl CGI::Fast program as it is written for mod_fcgid (its
# documentation's example, with a request count and a parameter), run
# unmodified as a FastCGI worker (t/59_fcgi_workers.t).
use strict;
use warnings;
use CGI::Fast;

my $n = 0;
while (my $q = CGI::Fast->new) {
    $n++;
    print $q->header(-type => 'text/plain', -charset => 'utf-8');
    print "pid=$$\nrequest=$n\n";
    print 'x=', $q->param('x') // '(none)', "\n";
    print 'method=', $q->request_method, "\n";
    print "$_=", ($ENV{$_} // ''), "\n" for qw(SCRIPT_NAME PATH_INFO);
    print STDERR "fast.pl: request $n\n";
}
