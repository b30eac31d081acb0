#!/usr/bin/perl
# STDIN reopened on /dev/null (and descriptor 0 with it), never put back.
use POSIX ();
open(STDIN, '<', '/dev/null') or die;
open(my $n, '<', '/dev/null') or die;
POSIX::dup2(fileno($n), 0);
print "Content-Type: text/plain\n\nstdin closed off\n";
