#!/usr/bin/perl
# Site B's script (t/47_security_engine_sites.t): its clients send cookies.
print "Content-Type: text/plain\n\n";
print "pid=$$\n";
print "env=", join(',', sort grep { /CGIPLUS/ } keys %ENV), "\n";
