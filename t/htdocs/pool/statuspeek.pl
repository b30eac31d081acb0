#!/usr/bin/perl
# A nosy script (t/56_status_secrets.t): the status page is open to local
# clients, and a script is one. It reads every page of it (HTML, each
# pool's page, JSON, metrics) and says whether it found a pool's secret
# (a CGIplusSetEnv value) or the query strings of requests in flight.
# Query: port=N&path=/cgiplus-status&secret=S&token=T&busy=P (P: a path
# that must be listed, so that the page did show the busy workers).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../../../lib/perl";
use CGIplus;
use IO::Socket::INET;

$| = 1;

sub fetch {
    my ($port, $path) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 5) or return '';
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    local $/;
    my $raw = <$s> // '';
    return $raw =~ m{^HTTP/1\.1 200} ? $raw : '';
}

while (CGIplus::accept()) {
    my %q = map { my ($k, $v) = split /=/, $_, 2; ($k => $v // '') } split /&/, $ENV{QUERY_STRING} // '';
    my $base = $q{path} // '/cgiplus-status';
    my $json = fetch($q{port}, "$base?json");
    my @pages = ($json, fetch($q{port}, $base), fetch($q{port}, "$base?metrics"));
    push @pages, fetch($q{port}, "$base?pool=$_") for $json =~ /"id":(\d+)/g;
    my $count = sub { my $n = 0; for my $p (@pages) { $n++ while $p =~ /\Q$_[0]\E/g } $n };
    print "Content-Type: text/plain\n\n";
    printf "pages=%d of %d\n", scalar(grep { length } @pages), scalar(@pages);
    printf "secret=%d\n", $count->($q{secret});
    printf "token=%d\n", $count->($q{token});
    printf "busy=%d\n", $count->($q{busy});
    printf "name=%d\n", $count->('DB_PASSWORD');
    CGIplus::finish();
}
