#!/usr/bin/perl
# The DATA handle reads what follows __DATA__ (t/58_engine_perl.t).
print "Content-Type: text/plain\n\n";
my @l = <DATA>;
print scalar(@l), " lines: ", @l;
__DATA__
alpha
beta
