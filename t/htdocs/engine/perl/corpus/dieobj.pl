#!/usr/bin/perl
# die with an object, before or after the header.
package My::Err; sub new { bless { msg => $_[1] }, $_[0] }
package main;
print "Content-Type: text/plain\n\nbody\n" if $ENV{QUERY_STRING} eq 'after';
die My::Err->new('corpus-object');
