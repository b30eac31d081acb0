#!/usr/bin/perl -wT
# -T: taint checks, which a persistent perl cannot turn on for one script
# (${^TAINT} is 1 under mod_cgid, 0 on the engine: docs/APPS.md).
print "Content-Type: text/plain\n\ntaint=${^TAINT}\n";
