#!/usr/bin/perl
# checklink's shape: a package of its own, a sub called above the line
# that declares its prototype, and a recursive walk over the file's own my
# variables (after which the engine compiles the script for each request,
# 3329): compiled again, it still compiles, as in each new process.
package Walker;
use strict;
my $docs = 0;
my %seen;
print "Content-Type: text/plain\n\n";
walk(1);
print "docs=$docs seen=", join(',', sort { $a <=> $b } keys %seen), "\n";
usage(0, 'done');

sub walk {
    my ($n) = @_;
    return if $seen{$n}++;
    $docs++;
    walk($n * 2) if $n < 8;
    walk($n + 1) if $n < 3;
}

sub usage () {
    my ($code, $msg) = @_;
    print "usage: $code $msg\n";
}
