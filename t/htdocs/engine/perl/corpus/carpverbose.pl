#!/usr/bin/perl
# `use Carp qw(verbose)` as it compiles, and Carp's level set as it runs:
# croak gives a backtrace, for this script (carpplain.pl's has none).
use Carp qw(verbose);
package CorpusCarpV { sub f { Carp::croak("corpus-croak") } }
print "Content-Type: text/plain\n\n";
print "verbose $Carp::Verbose level $Carp::CarpLevel\n";
eval { CorpusCarpV::f(1) };
(my $e = $@) =~ s/ at \S+ line \d+\.?//g;
print $e;
$Carp::CarpLevel = 1;
