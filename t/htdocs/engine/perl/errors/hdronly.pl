#!/usr/bin/perl
# a header, no body (t/58_engine_errors.t)
print "Content-Type: text/plain\n\n";
