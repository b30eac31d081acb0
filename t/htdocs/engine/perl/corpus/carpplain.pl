#!/usr/bin/perl
# Carp as a new process has it: croak's message names the caller, without
# a backtrace, whatever carpverbose.pl set.
use Carp ();
package CorpusCarpP { sub f { Carp::croak("corpus-croak") } }
print "Content-Type: text/plain\n\n";
print "verbose $Carp::Verbose level $Carp::CarpLevel\n";
eval { CorpusCarpP::f(1) };
(my $e = $@) =~ s/ at \S+ line \d+\.?//g;
print $e;
