#!/usr/bin/perl
# forky.pl: a CGI::Fast program with a common bug (t/59_fcgi_late_child.t):
# it forks a child during a request and the child does not Detach the FCGI
# request, so when the child exits, FCGI flushes the child's copy of the
# request's buffered output and ends the request again, on the connection
# the worker shares with it. ?fork: the child exits once a later request
# says it runs (it writes to the file FCGI_LEDGER.forky, which the test
# makes writable; ?wait then waits for that child: its records are on the
# connection before ?wait answers).
use strict;
use warnings;
use CGI::Fast;

my $flag = "$ENV{FCGI_LEDGER}.forky";
my ($n, $child) = (0, 0);
while (my $q = CGI::Fast->new) {
    $n++;
    my $qs = $ENV{QUERY_STRING} // '';
    print $q->header(-type => 'text/plain');
    print "pid=$$ request=$n q=$qs\n";
    if ($qs eq 'fork') {
        open my $fh, '>', $flag or die "$flag: $!";   # emptied
        close $fh;
        print "PRIVATE DATA OF request $n\n";
        $child = fork // die "fork: $!";
        if (!$child) {
            for (1 .. 400) { last if -s $flag; select undef, undef, undef, 0.05 }
            exit 0;   # not POSIX::_exit: FCGI flushes, as in the bug
        }
    }
    elsif ($qs eq 'wait' && $child) {
        open my $fh, '>', $flag or die "$flag: $!";
        print $fh "go\n";
        close $fh;
        waitpid $child, 0;
        $child = 0;
    }
}
