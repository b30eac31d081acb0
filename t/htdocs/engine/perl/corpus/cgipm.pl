#!/usr/bin/perl
use CGI qw(:standard);
print header(-type => 'text/plain', -charset => 'utf-8', -cookie => cookie(-name => 'sid', -value => 'v')),
      "name=", (param('name') // ''), " keys=", join(',', sort(param())), "\n";
