#!/usr/bin/perl
# As carpcompile.pl, with a brace left open: perl names the file's end.
use strict;
use CGI::Carp qw(fatalsToBrowser);
sub page {
    print "Content-Type: text/plain\n\nnever\n";
