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
push @checks, [ 'LICENSE is the Apache License 2.0',
                slurp("$top/LICENSE") =~ /Apache License\s+Version 2\.0, January 2004/ ];
push @checks, [ 'the README states the licence',
                slurp("$top/README.md") =~ /^## Licence\n+.*Apache License, Version 2\.0/m ];

report(@checks);
