#!/usr/bin/perl
# CGI.pm's settings changed at run time, as html2wml and UseModWiki do:
# no uploads, a POST over 1 kB refused, escapeHTML of '<' only.
use strict;
use warnings;
use CGI;
$CGI::POST_MAX = 1024;
$CGI::DISABLE_UPLOADS = 1;
$CGI::ENCODE_ENTITIES = '<';
$CGI::LIST_CONTEXT_WARN = 0;
my $q = CGI->new;
# (the body CGI.pm refused, read: mod_cgid may reset the connection of a
# script that leaves it unread)
{ my $junk; 1 while read(STDIN, $junk, 65536) }
print $q->header(-type => 'text/plain');
print "set: file=", (scalar($q->param('f')) // '-'), " error=", ($q->cgi_error // '-'), "\n";
