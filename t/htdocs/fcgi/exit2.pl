#!/usr/bin/perl
# exit2.pl: a Perl FCGI loop that exits by itself after 2 requests of its
# own (as a program written with a request count for mod_fcgid), while
# requests queue (t/59_fcgi_connection.t). QUERY_STRING "id=N" names the
# request in the answer and in a line of FCGI_LEDGER, so the test counts
# how many times each ran; the answer gives the body's length and sum.
# "then=linger" makes the request its last: it ends it, then waits 1.5 s
# listening without accepting, then exits (the exit window, made long:
# the next request's connection waits unaccepted); "then=shut" also shuts
# its listening socket down first (connections are refused from then on).
use strict;
use warnings;
use FCGI;

my $ledger = $ENV{FCGI_LEDGER}; # Accept makes the request's variables %ENV
my $req = FCGI::Request();
my $n = 0;
while ($req->Accept() >= 0) {
    my ($id) = ($ENV{QUERY_STRING} // '') =~ /\bid=(\d+)/;
    $id //= -1;
    if (my $l = $ledger) {
        open my $fh, '>>', $l or die "$l: $!";
        print $fh "exit2 $$ $id\n";
        close $fh;
    }
    my $body = '';
    read STDIN, $body, $ENV{CONTENT_LENGTH} || 0;
    my $sum = unpack '%32C*', $body;
    print "Content-Type: text/plain\r\n\r\npid=$$\nid=$id\nbody=", length($body), " $sum\n";
    if (my ($then) = ($ENV{QUERY_STRING} // '') =~ /\bthen=(linger|shut)\b/) {
        # shut before the answer ends: the next request comes at once
        if ($then eq 'shut') {
            open my $ls, '<&=', 0 or die "fd 0: $!";
            shutdown $ls, 0 or die "shutdown: $!";
        }
        $req->Finish;
        select undef, undef, undef, 1.5;
        exit 0;
    }
    exit 0 if ++$n >= 2;
}
