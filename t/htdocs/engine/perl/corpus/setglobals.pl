#!/usr/bin/perl
# Perl's own globals set for good (not local) at run time, and @INC added
# to; defaults.pl, run after it, prints them as a new process has them.
$" = ':'; $; = '|'; $^W = 1; $_ = 'corpus-left'; $0 = 'corpus-renamed';
eval { die "corpus-left-error\n" };
push @INC, '/corpus-incpush'; unshift @INC, 'lib_i';
my @a = (1, 2);
print "Content-Type: text/plain\n\nset: @a\n";
