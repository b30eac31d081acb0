#!/usr/bin/perl
# A named sub using a file-scoped my (Perl's "will not stay shared").
use CGI;
my $q = CGI->new;
sub show { return "x=" . ($q->param('x') // '') }
print "Content-Type: text/plain\n\n", show(), "\n";
