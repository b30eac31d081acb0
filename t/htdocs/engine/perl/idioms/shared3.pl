#!/usr/bin/perl
# As shared.pl, the subs in packages the file declares (Helper's, main's):
# they too see this run's $q (t/58_engine_idioms.t).
use strict;
use CGI;
my $q = CGI->new;
print $q->header('text/plain'), 'helper=', Helper::x(), ' main=', main::y(), "\n";

package Helper;
sub x { return $q->param('x') // '' }

package main;
sub y { return $q->param('x') // '' }
