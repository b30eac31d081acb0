#!/usr/bin/perl
# shared.pl under `use warnings` (as munin's CGIs): a CGI process, whose
# main program is the file, warns nothing about these named subs.
use strict;
use warnings;
use CGI;
my $q = CGI->new;
my %form;
parse_form();
print $q->header('text/plain'), 'x=', $q->param('x') // '', ' form=',
      join(',', map { "$_=$form{$_}" } sort keys %form), ' sub=', show(), "\n";
sub parse_form { $form{$_} = $q->param($_) for $q->param }
sub show { return $q->param('x') // '' }
