#!/usr/bin/perl
# A lock taken on a bareword handle and never released: a CGI process's
# exit closes the handle, and the lock with it. The file is the query
# (t/58_engine_corpus.t's, in t/logs).
use Fcntl qw(:flock);
my $file = $ENV{QUERY_STRING} // '';
$file =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge;
open(LOCK, '>>', $file) or die "$file: $!";
my $got = flock(LOCK, LOCK_EX | LOCK_NB) ? 'the lock taken' : 'the lock busy';
print "Content-Type: text/plain\n\n$got\n";
