#!/usr/bin/perl
# A run that leaves a package variable which cannot be put back: $gauge is
# tied to an object whose FETCH dies once the run closed it (a handle gone
# at the end of the run). The engine, reading it to reset it, logs why
# (3236) and serves on (t/58_engine_idioms.t).
use strict;
use warnings;

package Gauge;
sub TIESCALAR { return bless {}, shift }
sub FETCH { die "the gauge is closed\n" if $_[0]{closed}; return 42 }
sub STORE { }

package main;
our $gauge;
my $t = tie $gauge, 'Gauge';
print "Content-Type: text/plain\n\ngauge $gauge\n";
$t->{closed} = 1;
