#!/usr/bin/perl
# A plain CGI.pm script with -nosticky (gitweb.cgi's import): its form has
# no .cgifields. Compiled between two runs of fast_c.pl, its `use CGI
# qw(...)` sets @CGI::SAVED_SYMBOLS, which fast_c.pl's CGI::Fast->new
# must not take for its own.
use strict;
use warnings;
use CGI qw(:standard -nosticky);

my $q = CGI->new;
my $x = $q->param('x') // '-';
print $q->header(-type => 'text/plain'), "d x=$x pid=$$\n",
      start_form(-action => 'fast_d.pl'), checkbox(-name => 'sr', -label => 're'), end_form, "\n";
