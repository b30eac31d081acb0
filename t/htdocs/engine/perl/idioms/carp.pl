#!/usr/bin/perl
# CGI::Carp's fatalsToBrowser: a die gives its error page (t/58_engine_idioms.t).
use strict; use warnings;
use CGI qw(:standard);
use CGI::Carp qw(fatalsToBrowser);
print header('text/plain'), "partial output\n" if ($ENV{QUERY_STRING} // '') eq 'after';
die "carp-idiom-death\n";
