#!/usr/bin/perl
# A persistent test script for the supervisor tests (t/4x_*.t). The query
# string says what to do: sleep=S (seconds, before the body), ticks=N&gap=S
# (N lines, S apart), sc=... (a Script-Control header), callout=LINE (after
# the first body line), after=S (sleep after the body), die_early (exit
# before any output), die_loud (a line on stderr, then exit 3 before any
# output), crash (SIGKILL itself mid-body), lines=N (N lines),
# ignore_term (ignore SIGTERM from now on), victim (a line on stderr
# saying the worker has its request, before anything else), hold=FILE
# (wait, at most 30 s, until FILE exists: the test decides when the
# request ends), halfhead=S (sleeps S seconds after its header's first
# line), body (reads the body: "cl=CONTENT_LENGTH got=BYTES sum=S"),
# quit (exit 0 after ending the request, as a script that recycles itself),
# startconf=FILE (FILE's first line as this worker read it at its first
# request: a configuration read once, as php.ini is).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../../../lib/perl"; # also through a symlink (t/51_status_pools)
use CGIplus;
use Time::HiRes qw(sleep);

$| = 1;
my $n = 0;
my %startconf;
while (CGIplus::accept()) {
    $n++;
    my %q;
    for (split /&/, $ENV{QUERY_STRING} // '') {
        my ($k, $v) = split /=/, $_, 2;
        $v //= '';
        $v =~ s/\+/ /g;
        $v =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge;
        $q{$k} = $v;
    }
    print STDERR "app.pl: pid $$ has its request\n" if exists $q{victim};
    exit 3 if exists $q{die_early};
    if (exists $q{die_loud}) { print STDERR "app.pl: dying loudly (pid $$)\n"; exit 3 }
    $SIG{TERM} = 'IGNORE' if exists $q{ignore_term};
    sleep $q{sleep} if $q{sleep};
    if (exists $q{hold}) {
        for (1 .. 1500) { last if -e $q{hold}; sleep 0.02 }
    }
    print "Content-Type: text/plain\n";
    sleep $q{halfhead} if $q{halfhead};
    print "Script-Control: $q{sc}\n" if exists $q{sc};
    print "X-Pid: $$\n\n";
    # CGIplusSetEnv POOL_<tag> <tag>: the status page shows the name only
    my ($pool) = map { $ENV{$_} } sort grep { /^POOL_/ } keys %ENV;
    print "pid=$$ n=$n pool=", ($pool // ''), " uri=", ($ENV{REQUEST_URI} // ''), "\n";
    print 'answer=', CGIplus::callout($q{callout}), "\n" if exists $q{callout};
    if (exists $q{startconf}) {
        $startconf{$q{startconf}} //= do {
            open my $fh, '<', $q{startconf} or die "$q{startconf}: $!";
            scalar <$fh> // '' };
        print "startconf=$startconf{$q{startconf}}";
    }
    if (exists $q{body}) {
        my $b = '';
        1 while read(STDIN, $b, 65536, length $b);
        print "cl=", $ENV{CONTENT_LENGTH} // '-', " got=", length $b, " sum=", unpack('%32C*', $b), "\n";
    }
    for my $i (1 .. ($q{ticks} // 0)) {
        print "tick $i\n";
        sleep $q{gap} if $q{gap};
    }
    print "line $_\n" for 1 .. ($q{lines} // 0);
    sleep $q{after} if $q{after};
    kill 'KILL', $$ if exists $q{crash};
    CGIplus::finish();
    exit 0 if exists $q{quit};
}
