#!/usr/bin/perl
# `use open qw(:std :encoding(UTF-8))` as the script compiles: its STDOUT
# encodes, at every run, as in each CGI process.
use utf8;
use open qw(:std :encoding(UTF-8));
print "Content-Type: text/plain; charset=utf-8\n\ncafé ✓\n";
