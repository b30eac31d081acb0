#!/usr/bin/perl
use CGI::Carp qw(fatalsToBrowser);
print "Content-Type: text/html\n\n<p>start</p>\n";
die "corpus-plainfatal-die\n";
