#!/usr/bin/perl
# @INC under the engine (t/58_engine_perl.t): this script's `use lib` is its
# own; inc_b.pl, run by the same engine afterwards, must not see it.
use lib '/nonexistent/cgiplus-engine-inc-test';
print "Content-Type: text/plain\n\n";
print "pid=$$ has=", (grep { $_ eq '/nonexistent/cgiplus-engine-inc-test' } @INC) ? 1 : 0, "\n";
