#!/usr/bin/perl
# $0, __FILE__, __LINE__ and FindBin's, as perl gives a program.
use FindBin;
print "Content-Type: text/plain\n\n";
print "\$0=", ($0 eq $ENV{SCRIPT_FILENAME} ? 'SCRIPT_FILENAME' : $0), "\n";
print "__FILE__=", (__FILE__ eq $ENV{SCRIPT_FILENAME} ? 'SCRIPT_FILENAME' : __FILE__), " line=", __LINE__, "\n";
print "Script=$FindBin::Script\n";
print "caller=", (defined caller() ? 'set' : 'none'), "\n";
