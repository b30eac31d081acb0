#!/usr/bin/perl
# What a script sees of its process, per request (t/58_engine_perl.t): the
# engine must give each request a fresh %ENV, @ARGV, $0 and working
# directory, and CGI.pm's globals; the script's package variables start
# empty (as in a new process); loaded modules, and what is kept in another
# package (main's), stay.
use strict;
use warnings;
use Cwd qw(getcwd);
use CGI qw(:standard);

our $runs;
$runs++;
$EngineTest::runs++;
# a handler and an alarm the previous run left (it sets both, at its end)
my $alarm = alarm 0;
my $usr1 = ref $SIG{USR1} ? 'handler' : $SIG{USR1} || 'default';
my $leak = exists $ENV{LEAKED_BY_PREVIOUS} ? 'yes' : 'no';
$ENV{LEAKED_BY_PREVIOUS} = 1;
my $q = CGI->new;
print header('text/plain');
print "pid=$$\n";
print "runs=$runs\n";
print "engine_runs=$EngineTest::runs\n";
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
print "signals=alarm $alarm usr1 $usr1\n";
$SIG{USR1} = sub { };
alarm 600;
$/ = undef;     # a global a script may change for itself
$| = 1;
binmode STDOUT, ':utf8';
