#!/usr/bin/perl
# Leaves STDERR selected at its end (a CGI process just exits).
print "Content-Type: text/plain\n\nselected stderr next\n";
select STDERR; $| = 1;
print "corpus-selectleft-to-stderr\n";
