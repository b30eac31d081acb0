#!/usr/bin/perl
# A bareword handle opened as the script compiles (a dup of STDOUT, in a
# BEGIN block) and written at each run: each CGI process's compile opens
# it; the engine compiles once, so it must stay open after a run.
BEGIN { open(OUTB, '>&STDOUT') or die "dup: $!" }
print OUTB "Content-Type: text/plain\n\nthrough a handle opened in BEGIN: $ENV{QUERY_STRING}\n";
