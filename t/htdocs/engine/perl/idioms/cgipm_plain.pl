#!/usr/bin/perl
# CGI.pm as it loads: uploads taken, no POST limit, escapeHTML's entities.
use strict;
use warnings;
use CGI;
my $q = CGI->new;
print $q->header(-type => 'text/plain');
my $fh = $q->upload('f');
my $size = $fh ? do { local $/; length(<$fh> // '') } : '-';
print "plain: file=", (scalar($q->param('f')) // '-'), " size=$size error=", ($q->cgi_error // '-'),
      " escaped=", $q->escapeHTML(q{<a href="x">&}), "\n";
print "settings: post_max=$CGI::POST_MAX disable_uploads=$CGI::DISABLE_UPLOADS",
      " unlink=$CGI::UNLINK_TMP_FILES list_warn=$CGI::LIST_CONTEXT_WARN",
      " delete=$CGI::ALLOW_DELETE_CONTENT cookie_cache=$CGI::COOKIE_CACHE\n";
