#!/usr/bin/perl
# STDOUT tied, after the header, to a package of the script's that writes
# in upper case; left tied (its process's exit ends the tie).
package Upper;
sub TIEHANDLE { open my $fh, '>&=', 1 or die "fd 1: $!"; bless { fh => $fh } }
sub PRINT { my $s = shift; my $fh = $s->{fh}; print $fh uc join(defined $, ? $, : '', @_) }
sub PRINTF { my $s = shift; my $f = shift; $s->PRINT(sprintf $f, @_) }
sub FILENO { fileno $_[0]{fh} }
package main;
$| = 1;
print "Content-Type: text/plain\n\n";
tie *STDOUT, 'Upper';
print "shouted\n";
