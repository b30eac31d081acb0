#!/usr/bin/perl
use POSIX qw(setlocale LC_ALL LC_NUMERIC);
my $was = setlocale(LC_NUMERIC);
setlocale(LC_ALL, 'C.UTF-8');
print "Content-Type: text/plain\n\nnumeric was=$was\n";
