#!/usr/bin/perl
# One version: configure.ac's AC_INIT. The built runner's --version, the man
# pages, NEWS's newest entry and debian/changelog's upstream version must
# all say it; the licence is in LICENSE and stated in the README. TAP output.
use strict;
use warnings;
use File::Basename qw(dirname);
use lib dirname(__FILE__);
use TapChecks qw(report slurp);

my $top = $ENV{srcdir} // dirname(dirname(dirname(__FILE__)));

my ($v) = slurp("$top/configure.ac") =~ /^AC_INIT\(\[mod_cgiplus\],\s*\[([^\]]+)\]/m;
my @checks = ([ 'configure.ac has a version', defined $v && $v =~ /^\d+\.\d+\.\d+$/ ]);
$v //= 'none';
my $out = `./runner/cgiplus-runner --version 2>&1`;
push @checks, [ "cgiplus-runner --version says $v", $? == 0 && $out =~ /^cgiplus-runner \Q$v\E\b/ ];
push @checks, [ "mod_cgiplus(5) says $v", slurp('man/mod_cgiplus.5') =~ /"mod_cgiplus \Q$v\E"/ ];
push @checks, [ "cgiplus-runner(8) says $v", slurp('man/cgiplus-runner.8') =~ /"mod_cgiplus \Q$v\E"/ ];
my ($news) = slurp("$top/NEWS") =~ /^(\d+\.\d+\.\d+) \(/m;
push @checks, [ "NEWS's newest entry is $v", ($news // '') eq $v ];
my ($deb) = slurp("$top/debian/changelog") =~ /^mod-cgiplus \(([^)-]+)-\d+\)/;
push @checks, [ "debian/changelog's newest entry is $v", ($deb // '') eq $v ];
# Nothing else in the sources holds a release number: the Perl modules'
# $VERSION is written at install (Makefile.am, install-data-hook).
for my $pm ('lib/perl/CGIplus.pm', 'lib/perl/Plack/Handler/CGIplus.pm') {
    push @checks, [ "$pm leaves \$VERSION to make install", slurp("$top/$pm") =~ /^our \$VERSION = '0';/m ];
}
my @holders;
for my $f (split /\0/, `cd '$top' && git ls-files -z 2>/dev/null`) {
    next if $f =~ m{^(configure\.ac|NEWS|debian/changelog)$} || $f =~ m{^(t|bench)/};
    push @holders, $f if slurp("$top/$f") =~ /(?<![\d.])\Q$v\E(?![\d.])/;
}
push @checks, [ "no tracked source but configure.ac, NEWS, debian/changelog says $v"
                . (@holders ? " (@holders)" : ''), !@holders ];
push @checks, [ 'LICENSE is the Apache License 2.0',
                slurp("$top/LICENSE") =~ /Apache License\s+Version 2\.0, January 2004/ ];
push @checks, [ 'the README states the licence',
                slurp("$top/README.md") =~ /^## Licence\n+.*Apache License, Version 2\.0/m ];

report(@checks);
