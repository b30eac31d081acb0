#!/usr/bin/perl
# A named sub inside another named sub: Perl warns "Variable "$nested_y"
# will not stay shared" in a CGI process too.
use strict;
use warnings;
print "Content-Type: text/plain\n\n";
sub outer { my $nested_y = shift; sub inner { return $nested_y // 'undef' } return inner() }
print 'outer=', outer($ENV{QUERY_STRING} || 'none'), "\n";
