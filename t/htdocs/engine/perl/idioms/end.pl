#!/usr/bin/perl
# An END block runs at the end of every request, as at the end of a CGI process.
use strict; use warnings;
print "Content-Type: text/plain\n\n";
print "body\n";
exit 0 if ($ENV{QUERY_STRING} // '') eq 'exit';
print "no exit\n";
END { print "END ran\n" }
