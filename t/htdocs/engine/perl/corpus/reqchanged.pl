#!/usr/bin/perl
# Requires a library that t/58_engine_corpus.t rewrites between requests.
require "./reqchanged-lib.pl";
print "Content-Type: text/plain\n\n", lib_version(), "\n";
