#!/usr/bin/perl
# A FastCGI worker (CGI::Fast): reach_lib.pl; the victim of
# t/47_security_fcgi.t too (?victim= absent: its pid and its secret).
use strict;
use warnings;
use CGI::Fast;
(my $dir = __FILE__) =~ s{[^/]*$}{};
do "${dir}reach_lib.pl" or die "reach_lib.pl: $@ $!";
while (my $q = CGI::Fast->new) {
    print "Content-Type: text/plain\n\n", reach_report($ENV{QUERY_STRING});
}
