#!/usr/bin/perl
# Package variables without `my`, as old scripts use them: under CGI each
# run starts with them empty; what a required file of globals and a BEGIN
# block set is each run's start; a variable imported from a module
# (FindBin's $Bin) is the module's.
use FindBin qw($Bin);
require './globals_conf.pl';
BEGIN { @begin = ('b1') }
$n++;
push @rows, "row$n";
$seen{$n}++;
$text .= 'x';
push @site, 'extra';
push @begin, 'b2';
print "Content-Type: text/plain\n\n";
print "n=$n rows=@rows seen=", join(',', sort keys %seen), " text=$text",
      " site=@site title=$title begin=@begin bin=", ($Bin =~ m{/idioms\z} ? 'ok' : $Bin), "\n";
