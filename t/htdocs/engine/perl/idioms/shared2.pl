#!/usr/bin/perl
# As shared.pl, with the name the sub uses declared twice in the file: the
# engine cannot tell which one the sub sees, so it compiles the script for
# each request.
use strict;
use CGI;
my $q = CGI->new;
{ my $q = 'another'; }
print $q->header('text/plain'), 'x=', show(), "\n";
sub show { return $q->param('x') // '' }
