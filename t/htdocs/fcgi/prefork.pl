#!/usr/bin/perl
# prefork.pl: a pre-fork FastCGI application (t/59_fcgi_prefork.t), as
# FCGI::ProcManager, php-cgi with PHP_FCGI_CHILDREN or a libfcgi program
# that forks: the parent keeps the listening socket (descriptor 0) and
# only starts children, one at a time here, each of which accepts
# connections and serves requests with Perl's FCGI. Every request it takes
# is one line in the file FCGI_LEDGER.prefork names (its side effect): the
# child's pid and the QUERY_STRING. ?die: the child dies right after that
# line, without reading the request's body (a POST it never reads), while
# the parent still listens. PREFORK_MAX_REQUESTS=N: a child ends after its
# Nth request, PREFORK_GAP_MS after its END_REQUEST (php-cgi at
# PHP_FCGI_MAX_REQUESTS with PHP_FCGI_CHILDREN: END_REQUEST, then the
# close a moment later), leaving a request written meanwhile unread
# (t/59_fcgi_prefork_gap.t). Each answer names the parent (X-Worker).
use strict;
use warnings;
use FCGI;
use POSIX ();

my $ledger = "$ENV{FCGI_LEDGER}.prefork";
my $child = 0;
$SIG{TERM} = sub { kill 'TERM', $child if $child; POSIX::_exit(0) };
for (;;) {
    $child = fork // die "fork: $!";
    last if !$child;
    waitpid $child, 0;
    $child = 0;
}
# the child: gone with its parent (SIGTERM, or the runner's SIGKILL)
$SIG{TERM} = 'DEFAULT';
syscall(157, 1, 9) if $^O eq 'linux' && (POSIX::uname())[4] eq 'x86_64'; # PR_SET_PDEATHSIG
my ($max, $gap, $served) = ($ENV{PREFORK_MAX_REQUESTS} || 0, $ENV{PREFORK_GAP_MS} || 0, 0);
my $parent = getppid();
my %env;
my $req = FCGI::Request(\*STDIN, \*STDOUT, \*STDERR, \%env, 0);
while ($req->Accept() >= 0) {
    my $qs = $env{QUERY_STRING} // '';
    if (open my $fh, '>>', $ledger) {
        print $fh "$$ $qs\n";
        close $fh;
    }
    POSIX::_exit(0) if $qs =~ /(?:^|&)die(?:&|$)/;
    my ($body, $want) = ('', $env{CONTENT_LENGTH} || 0);
    while (length $body < $want) {
        my $n = read STDIN, $body, $want - length $body, length $body;
        last unless $n;
    }
    print "Content-Type: text/plain\r\nX-Worker: $parent\r\n\r\npid=$$ q=$qs body="
        . length($body) . "\n";
    $req->Finish;
    if ($max && ++$served >= $max) {
        select undef, undef, undef, $gap / 1000;
        POSIX::_exit(0);
    }
}
POSIX::_exit(0);
