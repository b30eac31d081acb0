#!/usr/bin/perl
# a Status httpd passes on as it is for mod_cgi (t/58_engine_errors.t)
print "Status: 200x OK\nContent-Type: text/plain\n\nbody\n";
