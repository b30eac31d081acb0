#!/usr/bin/perl
# do and require of a file by a bare name: perl looks in @INC, which has
# no '.' (perl 5.26 on), not in the working directory.
my $r = do 'conf.pl';
print "Content-Type: text/plain\n\n", defined $r ? "do: loaded\n" : "do: not loaded\n";
my $ok = eval { require 'rlib.pl'; 1 };
print $ok ? "require: loaded\n" : "require: " . ($@ =~ /^(Can't locate rlib\.pl in \@INC)/ ? $1 : 'other error') . "\n";
