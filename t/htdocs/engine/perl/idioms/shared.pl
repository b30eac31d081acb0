#!/usr/bin/perl
# Named subs using the file's own my variables (Perl's "will not stay
# shared"), as many old scripts have them: each run must see its own
# request's $q and fill its own %form.
use strict;
use CGI;
my $q = CGI->new;
my %form;
parse_form();
print $q->header('text/plain'), 'x=', $q->param('x') // '', ' form=',
      join(',', map { "$_=$form{$_}" } sort keys %form), ' sub=', show(), "\n";
sub parse_form { $form{$_} = $q->param($_) for $q->param }
sub show { return $q->param('x') // '' }
