#!/usr/bin/perl
# Another script of site A (t/47_security_engine_sites.t): its engine's pid.
print "Content-Type: text/plain\n\npid=$$\n";
