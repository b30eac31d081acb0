#!/usr/bin/perl
# INIT blocks, the script's and a module's it loads (Sympa's Crash.pm and
# Process.pm register their handlers in one), run after the compile and
# before the script's code, as in a CGI process (t/58_engine_idioms.t).
use strict;
use warnings;
use lib '.';
use InitBlockMod;
our @order;
BEGIN { push @order, 'begin' }
INIT { push @order, "init ($InitBlockMod::ready)" }
push @order, 'run';
print "Content-Type: text/plain\n\n@order\n";
print "module: $InitBlockMod::ready\n";
