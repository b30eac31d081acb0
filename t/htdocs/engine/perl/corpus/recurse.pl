#!/usr/bin/perl
# A named sub that calls itself, using the file's own my variables (as
# checklink's check_uri counts documents in $doc_count and skips those in
# %processed): each request starts from 0 and nothing seen.
use strict;
use warnings;
my $docs = 0;
my %seen;
sub visit {
    my ($n) = @_;
    return if $seen{$n}++;
    $docs++;
    print "visit $n: doc $docs\n";
    visit($n * 2) if $n < 8;
    visit($n + 1) if $n < 3;
}
print "Content-Type: text/plain\n\n";
visit(1);
print "docs=$docs seen=", join(',', sort { $a <=> $b } keys %seen), "\n";
