#!/usr/bin/perl
# undef $/ for good (not local), then a line read from a file.
undef $/;
my $body = <STDIN>;
open my $fh, '<', __FILE__; my $first = <$fh>;
print "Content-Type: text/plain\n\nbody=", ($body // 'undef'), " first_len=", length($first), "\n";
