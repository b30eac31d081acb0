#!/usr/bin/perl
# A FastCGI program as written for mod_fcgid (Perl's CGI::Fast), not
# changed: under CGIplusMode fastcgi the runner starts it as mod_fcgid
# would and speaks FastCGI to it; its loop serves request after request.
use strict;
use warnings;
use CGI::Fast;

my $count = 0;
while (my $q = CGI::Fast->new) {
    $count++;
    print $q->header(-type => 'text/plain'), "count=$count pid=$$\n";
}
