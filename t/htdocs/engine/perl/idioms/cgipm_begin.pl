#!/usr/bin/perl
# CGI.pm's upload limit set as the script compiles (a BEGIN block).
use strict;
use warnings;
use CGI;
BEGIN { $CGI::POST_MAX = 100 }
my $q = CGI->new;
# (the body CGI.pm refused, read: mod_cgid may reset the connection of a
# script that leaves it unread)
{ my $junk; 1 while read(STDIN, $junk, 65536) }
print $q->header(-type => 'text/plain');
print "begin: post_max=$CGI::POST_MAX error=", ($q->cgi_error // '-'), "\n";
