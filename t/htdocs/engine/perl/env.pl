#!/usr/bin/perl
# What a script sees of its process, per request (t/58_engine_perl.t): the
# engine must give each request a fresh %ENV, @ARGV, $0 and working
# directory, and CGI.pm's globals; `our` globals of the script start again
# (its file is run again); loaded modules stay.
use strict;
use warnings;
use Cwd qw(getcwd);
use CGI qw(:standard);

our $runs;
$runs++;
my $leak = exists $ENV{LEAKED_BY_PREVIOUS} ? 'yes' : 'no';
$ENV{LEAKED_BY_PREVIOUS} = 1;
my $q = CGI->new;
print header('text/plain');
print "pid=$$\n";
print "runs=$runs\n";
print "leak=$leak\n";
print "argv=", join('|', @ARGV), "\n";
print "argc=", scalar(@ARGV), "\n";
print "zero=$0\n";
print "cwd=", getcwd(), "\n";
print "query=", $ENV{QUERY_STRING} // '', "\n";
print "x=", (param('x') // '(none)'), "\n";
print "script=$ENV{SCRIPT_NAME}\n";
print "filename=$ENV{SCRIPT_FILENAME}\n";
print "cgi_loaded=", ($INC{'CGI.pm'} ? 1 : 0), "\n";
$/ = undef;     # a global a script may change for itself
$| = 1;
binmode STDOUT, ':utf8';
