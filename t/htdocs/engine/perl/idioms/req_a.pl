#!/usr/bin/perl
# Two scripts require one library of subs and one of globals (cgi-lib.pl's
# way): each must have them, in whatever order they run.
use strict; use warnings;
require './lib.pl';
our ($site_name);
require './config.pl';
print "Content-Type: text/plain\n\n";
print "a: ", helper('x'), " site=$site_name\n";
