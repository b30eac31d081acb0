#!/usr/bin/perl
open my $p, '-|', 'printf', 'x\ny\n' or die;
my @l = <$p>; close $p;
print "Content-Type: text/plain\n\nlines=", scalar(@l), " status=$?\n";
