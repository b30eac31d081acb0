#!/usr/bin/perl
# dies before any output (t/58_engine_errors.t)
print STDERR "errors-stderr-marker before the die\n";
die "errors-die-marker\n";
