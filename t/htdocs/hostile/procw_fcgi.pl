#!/usr/bin/perl
# A FastCGI worker (CGI::Fast): procw_lib.pl.
use strict;
use warnings;
use CGI::Fast;
(my $dir = __FILE__) =~ s{[^/]*$}{};
do "${dir}procw_lib.pl" or die "procw_lib.pl: $@ $!";
while (my $q = CGI::Fast->new) {
    print "Content-Type: text/plain\n\n", procw_report($ENV{QUERY_STRING});
}
