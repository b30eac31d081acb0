#!/usr/bin/perl
# A script's own $SIG{__DIE__} page: called once for a die, never for exit.
use strict; use warnings;
$SIG{__DIE__} = sub { print "Content-Type: text/plain\n\nhook: $_[0]" };
my $mode = $ENV{QUERY_STRING} // '';
die "sighook-death\n" if $mode eq 'die';
print "Content-Type: text/plain\n\n";
print "before\n";
exit 0 if $mode eq 'exit';
print "after\n";
