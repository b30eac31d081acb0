#!/usr/bin/perl
# The same with a handle opened by name (no strict refs), a glob its file
# made for a variable of that name, in some runs (?b) only.
use POSIX qw(strftime);
our $OUT2 = "OUT2";
my $out = ($ENV{QUERY_STRING} // '') eq 'b' ? $OUT2 : 'STDOUT';
open($OUT2, ">&STDOUT") or die "dup: $!" if $out eq $OUT2;
print $out "Content-Type: text/plain\n\nvia $out: $ENV{QUERY_STRING}\n";
