#!/usr/bin/perl
use utf8;
binmode STDOUT, ':encoding(UTF-8)';
print "Content-Type: text/plain; charset=utf-8\n\ncafé ✓\n";
