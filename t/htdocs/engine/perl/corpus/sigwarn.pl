#!/usr/bin/perl
# A __WARN__ handler that puts warnings into the page.
use warnings;
print "Content-Type: text/plain\n\n";
local $SIG{__WARN__} = sub { print "caught: $_[0]" };
warn "corpus-sigwarn\n";
my $u; my $x = "a" . $u;
