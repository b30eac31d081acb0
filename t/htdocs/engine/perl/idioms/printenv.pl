#!/usr/bin/perl
# printenv, as old CGI examples have it: every variable with its value,
# then a child's environment (t/58_engine_idioms.t).
$| = 1;
print "Content-Type: text/plain\n\n";
print "$_=$ENV{$_}\n" for sort keys %ENV;
print "--child\n";
system('env');
print "--end\n";
