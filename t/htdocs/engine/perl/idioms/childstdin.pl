#!/usr/bin/perl
# A child that reads its stdin to its end (cat): under CGI it gets what is
# left of the request's body (?part: the script sysreads 4 bytes first), then
# end of file. t/58_engine_idioms.t
$| = 1;
my $own = '';
sysread(STDIN, $own, 4) if ($ENV{QUERY_STRING} // '') eq 'part';
print "Content-Type: text/plain\n\nscript read: [$own] child read: [";
system('cat');
print "]\n";
