#!/usr/bin/perl
# CGI::Simple as its synopsis uses it: uploads enabled and POST_MAX raised
# at run time, a charset given to header().
use strict;
use warnings;
use CGI::Simple;
$CGI::Simple::DISABLE_UPLOADS = 0;
$CGI::Simple::POST_MAX = -1;
my $q = CGI::Simple->new;
print $q->header(-type => 'text/plain', -charset => 'utf-8');
print "set: uploads=", ($q->upload ? scalar($q->upload) : 0), "\n";
