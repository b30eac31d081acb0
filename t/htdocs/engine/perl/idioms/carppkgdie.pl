#!/usr/bin/perl
# The same, dying as it runs, before its header (?after: after it).
use strict;
use warnings;
package My::App;
use CGI::Carp qw(fatalsToBrowser);
print "Content-Type: text/plain\n\nbefore\n" if ($ENV{QUERY_STRING} // '') eq 'after';
die "carppkgdie: it failed\n";
