#!/usr/bin/perl
# Every program built here that an Apache::Test file runs (t/*.t, their
# confs and libraries name its path) is built by make (all), not only by
# make check: a test file run by hand after scripts/build or make would
# otherwise skip or fail its cases (t/src/fcgi_app: session 37). Reads
# Makefile.am (no build needed). TAP output.
use strict;
use warnings;
use File::Basename qw(dirname);
use lib dirname(__FILE__);
use TapChecks qw(report slurp);

my $top = dirname(dirname(dirname(__FILE__)));
$top = $ENV{srcdir} if $ENV{srcdir};

my $am = slurp("$top/Makefile.am");
$am =~ s/\\\n/ /g;
# every assignment of a variable, += ones included (whatever their condition)
my %var;
while ($am =~ /^(\w+)\s*\+?=[ \t]*(.*)$/mg) {
    push @{ $var{$1} }, split ' ', $2;
}
sub expand {
    my @out;
    for (@_) {
        if (/^\$\((\w+)\)$/) { push @out, expand(@{ $var{$1} // [] }) }
        else { push @out, $_ }
    }
    return @out;
}
my %built_by_all = map { $_ => 1 } expand(map { @{ $var{$_} // [] } } qw(bin_PROGRAMS noinst_PROGRAMS));
my ($local) = $am =~ /^all-local:[ \t]*(.*)$/m;
$built_by_all{$_} = 1 for expand(split ' ', $local // '');

my @programs = expand(map { @{ $var{$_} // [] } } qw(noinst_PROGRAMS check_PROGRAMS));
my $tests = join "\n", map { slurp($_) } grep { -f } glob("$top/t/*.t $top/t/conf/* $top/t/lib/*.pm");
my @checks;
for my $p (@programs) {
    my ($base) = $p =~ m{([^/]+)$};
    # named by its path, or (a script under t/htdocs, asked for by URL) by its name
    next unless $tests =~ /\Q$p\E\b/ || ($p =~ m{^t/htdocs/} && $tests =~ /\b\Q$base\E\b/);
    push @checks, ["$p (an Apache::Test file runs it) is built by make (all)", $built_by_all{$p}];
}
push @checks, ['some program is named by the Apache::Test files', scalar @checks];
report(@checks);
