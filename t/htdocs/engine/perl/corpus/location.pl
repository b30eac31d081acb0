#!/usr/bin/perl
# A local redirect (a path): httpd serves the other URL itself.
my ($dir) = $ENV{SCRIPT_NAME} =~ m{^(.*/)};
print "Location: ${dir}stderr.pl\n\n";
