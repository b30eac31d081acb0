#!/usr/bin/perl
# exit in the middle of a request ends the request, not the engine
# (t/58_engine_perl.t): ?0 exits 0, ?3 exits 3, ?die dies before any output.
use strict;
use warnings;

my $q = $ENV{QUERY_STRING} // '';
die "engine-test-death\n" if $q eq 'die';
print "Content-Type: text/plain\n\n";
print "before pid=$$\n";
exit($q eq '3' ? 3 : 0) if $q ne '';
print "not exited\n";
