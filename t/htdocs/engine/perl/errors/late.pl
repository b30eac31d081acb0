#!/usr/bin/perl
# dies after its header and part of its body (t/58_engine_errors.t)
$| = 1;
print "Content-Type: text/plain\n\npart of the body\n";
die "errors-late-marker\n";
