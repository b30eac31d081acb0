#!/usr/bin/perl
# gitweb.fcgi's shape: CGI.pm imported with -nosticky, CGI::Fast required
# at run time (gitweb's configure_as_fcgi). CGI::Fast's own `use CGI`
# empties @CGI::SAVED_SYMBOLS and CGI::Fast->new resets CGI.pm's pragmas,
# so the form is sticky (end_form adds .cgifields) under mod_cgid and
# mod_fcgid alike.
use strict;
use warnings;
use CGI qw(:standard -nosticky);
require CGI::Fast;

while (my $q = CGI::Fast->new) {
    my $x = $q->param('x') // '-';
    print $q->header(-type => 'text/plain'), "c x=$x pid=$$\n",
          $q->start_form(-action => 'fast_c.pl'), $q->checkbox(-name => 'sr', -label => 're'), $q->end_form, "\n";
}
