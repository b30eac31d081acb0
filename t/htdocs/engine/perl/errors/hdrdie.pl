#!/usr/bin/perl
# dies inside its header (t/58_engine_errors.t)
print "Content-Type: text/plain\n";
die "errors-hdrdie-marker\n";
