#!/usr/bin/perl
# The same in a package the script declares (`package My::App;`): its
# handle is the script's as well, flushed as its run ends.
package CorpusDupPkg;
open(OUT, ">&STDOUT") or die "dup: $!";
print OUT "Content-Type: text/plain\n\nvia a dup of STDOUT in CorpusDupPkg: $ENV{QUERY_STRING}\n";
