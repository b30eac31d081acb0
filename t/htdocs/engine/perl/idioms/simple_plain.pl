#!/usr/bin/perl
# CGI::Simple at its defaults: no uploads, POST_MAX 100 kB, ISO-8859-1.
use strict;
use warnings;
use CGI::Simple;
my $q = CGI::Simple->new;
print $q->header(-type => 'text/plain');
print "plain: disable_uploads=$CGI::Simple::DISABLE_UPLOADS post_max=$CGI::Simple::POST_MAX",
      " file=", ($q->param('f') // '-'), " error=", ($q->cgi_error // '-'), "\n";
