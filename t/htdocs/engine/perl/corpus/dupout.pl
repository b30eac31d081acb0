#!/usr/bin/perl
# A dup of STDOUT in a bareword handle, never closed (a CGI process's exit
# flushes it); each run prints its own query.
open(OUT, ">&STDOUT") or die "dup: $!";
print OUT "Content-Type: text/plain\n\nvia a dup of STDOUT: $ENV{QUERY_STRING}\n";
