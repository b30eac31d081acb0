#!/usr/bin/perl
# STDIN tied to a package of the script's, not untied: reads from it.
package Lines;
sub TIEHANDLE { my @l = ("tied 1\n", "tied 2\n"); bless \@l }
sub READLINE { my $s = shift; wantarray ? splice(@$s) : shift @$s }
sub READ { my $s = shift; my $l = shift @$s // return 0; $_[0] = $l; length $l }
package main;
tie *STDIN, 'Lines';
my @got = <STDIN>;
print "Content-Type: text/plain\n\n", @got;
