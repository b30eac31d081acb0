#!/usr/bin/perl
# __END__ after `use utf8`: the same as __DATA__ for the program's DATA.
use utf8;
print "Content-Type: text/plain; charset=utf-8\n\n";
my $line = <DATA>;
chomp $line;
print "length ", length($line), "\n";
__END__
naïve ✓
