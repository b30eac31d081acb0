#!/usr/bin/perl
do "./conf.pl" or die "conf.pl: $! $@";
print "Content-Type: text/plain\n\ntitle=$title menu=@menu\n";
