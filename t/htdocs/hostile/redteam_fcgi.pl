#!/usr/bin/perl
# A FastCGI worker (CGI::Fast): redteam_lib.pl; the victim of
# t/47_security_fcgi.t too (?victim= absent: its pid and its secret).
use strict;
use warnings;
use CGI::Fast;
(my $dir = __FILE__) =~ s{[^/]*$}{};
do "${dir}redteam_lib.pl" or die "redteam_lib.pl: $@ $!";
while (my $q = CGI::Fast->new) {
    print "Content-Type: text/plain\n\n", redteam_report($ENV{QUERY_STRING});
}
