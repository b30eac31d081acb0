#!/usr/bin/perl
# does not compile (t/58_engine_errors.t)
use strict;
print "Content-Type: text/plain\n\n";
$errors_undeclared = 1;
