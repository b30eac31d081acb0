#!/usr/bin/perl
# Its templates under __DATA__, in a package of its own (as blosxom):
# perl opens that package's DATA (Tmpl::DATA), not main's.
# t/58_engine_idioms.t
package Tmpl;
use strict;
my %t;
while (<DATA>) {
    last if /^__END__$/;
    my ($k, $v) = /^(\w+) (.*)$/ or next;
    $t{$k} .= "$v\n";
}
print "Content-Type: text/plain\n\n", map { "$_: $t{$_}" } sort keys %t;
__DATA__
head the head
body the body
body and more
__END__
tail not read
