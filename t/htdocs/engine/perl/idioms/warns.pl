#!/usr/bin/perl
# Warns after its header: the warning goes to the error log, never the body.
use strict; use warnings;
print "Content-Type: text/plain\n\n";
warn "idiom-warning-marker\n";
print "ok\n";
