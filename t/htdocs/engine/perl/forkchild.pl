#!/usr/bin/perl
# forkchild.pl (t/58_engine_fork.t): ?fork answers, then forks a child that
# does "background work" (waits until ?wait writes the flag file) and
# exits, its STDOUT closed first as a CGI program's background child must
# (else mod_cgi, and the engine, wait for it to end the response); ?wait
# writes the flag, waits for that child, and answers.
use strict;
use warnings;
use File::Basename qw(dirname);
our $child;
my $flag = dirname(__FILE__) . '/../../../logs/engine_fork_flag';
my $q = $ENV{QUERY_STRING} // '';
print "Content-Type: text/plain\n\nanswer to $q pid $$\n";
if ($q eq 'fork') {
    open my $fh, '>', $flag or die "$flag: $!";
    close $fh;
    $child = fork // die "fork: $!";
    if (!$child) {
        close STDOUT;
        for (1 .. 400) { last if -s $flag; select undef, undef, undef, 0.05 }
        exit 0;
    }
}
elsif ($q eq 'wait' && $child) {
    open my $fh, '>', $flag or die "$flag: $!";
    print $fh "go\n";
    close $fh;
    waitpid $child, 0;
    $child = 0;
}
