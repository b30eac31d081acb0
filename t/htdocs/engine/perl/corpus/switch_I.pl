#!/usr/bin/perl -Ilib_i
# -I: a library directory (relative: from the working directory, the
# script's under mod_cgid) before perl's own.
use CorpusSwitchI;
print "Content-Type: text/plain\n\n", CorpusSwitchI::hello(), "\n";
