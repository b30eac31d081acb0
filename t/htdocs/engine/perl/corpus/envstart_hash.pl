#!/usr/bin/perl
# SetEnv PERL_HASH_SEED 0, PERL_PERTURB_KEYS 0: the order of a hash's keys
# is the same in every process (a script that relies on it).
my %h = map { ($_ => 1) } qw(alpha beta gamma delta epsilon zeta eta theta iota kappa);
print "Content-Type: text/plain\n\n", join(',', keys %h), "\n";
