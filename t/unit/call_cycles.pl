#!/usr/bin/perl
# The module's and the runner's files call one way (issue 21): no call
# cycle of more than 5 files among either's, read from the built objects by scripts/callgraph (run
# from the build directory, after the build). TAP output.
use strict;
use warnings;
use File::Basename qw(dirname);
use lib dirname(__FILE__);
use TapChecks qw(report);

my $top = $ENV{srcdir} // dirname(dirname(dirname(__FILE__)));
my $max = 5;
my @checks;
for my $dir (qw(mod_cgiplus runner)) {
    my @out = `$^X $top/scripts/callgraph $dir 2>&1`;
    my ($n) = join('', @out) =~ /largest call cycle (\d+) files/;
    print "# $_" for @out;
    push @checks, [ "$dir: the largest call cycle has at most $max files (" .
                    ($n // 'no figure') . ')', defined $n && $n <= $max ];
}
report(@checks);
