#!/usr/bin/perl
# A CGI.pm upload that says where CGI.pm put it (its temporary file) and
# how large it was: t/58_engine_perl.t checks that the file is gone once
# the response has come, as under mod_cgid. ?fn: CGI.pm's function
# interface (its default object), else an object of the script's.
use strict;
use warnings;
use CGI qw(:standard);

my $q = ($ENV{QUERY_STRING} // '') eq 'fn' ? undef : CGI->new;
my $name = $q ? $q->param('file') : param('file');
my $fh = $q ? $q->upload('file') : upload('file');
my $tmp = $q ? $q->tmpFileName($name) : tmpFileName($name);
print $q ? $q->header('text/plain') : header('text/plain');
print "tmp=$tmp\nsize=", ($fh ? -s $fh : -1), "\nthere=", (-e $tmp ? 1 : 0), "\n";
