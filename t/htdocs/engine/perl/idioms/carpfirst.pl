#!/usr/bin/perl
# The first script of its engine to load CGI::Carp (as CGI.pm's
# examples/file_upload.cgi does).
use strict;
use warnings;
use CGI::Carp qw(fatalsToBrowser);
print "Content-Type: text/plain\n\nfirst\n";
