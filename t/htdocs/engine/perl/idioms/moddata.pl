#!/usr/bin/perl
# A module of its directory that reads its own DATA at each call: each run
# finds it whole, as each CGI process does. t/58_engine_idioms.t
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use DataMod;
print "Content-Type: text/plain\n\n", DataMod::styles();
