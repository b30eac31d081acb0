#!/usr/bin/perl
# use CGI qw(-nph) in a script not named nph-: its header() starts with a
# status line, which mod_cgid does not take as a header.
use CGI qw(-nph);
my $q = CGI->new;
print $q->header('text/plain'), "nph header\n";
