# A no-abort worker whose client left is bounded (issue 10, hole 6): it runs
# on for at most one output timeout (here 2 s) after the client went, then
# is stopped (CGIPLUS2084, counted as a timeout), and its pool slot serves
# again. The same whichever way the request went: relayed by the runner
# (CGIplusDirect off), or on the direct path, where the httpd child hands
# the worker back mid-response and the runner drains it.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Select;
use IO::Socket::INET;
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget hstart status pool_of wait_for);

plan tests => 12;

my $vars = Apache::Test::config()->{vars};
my $errlog = "$vars->{t_logs}/error_log";
sub log_text { open my $fh, '<', $errlog or return ''; local $/; return <$fh> }

# One response read off a keep-alive connection (chunked or with a length).
sub read_response {
    my ($s) = @_;
    my ($buf, $end, $sel) = ('', time + 10, IO::Select->new($s));
    while (time < $end && $sel->can_read($end - time)) {
        sysread($s, my $chunk, 65536) or last;
        $buf .= $chunk;
        my ($head, $body) = split /\r\n\r\n/, $buf, 2;
        next unless defined $body;
        return $head if $head =~ /^Content-Length:\s*(\d+)/mi && length($body) >= $1;
        return $head if $body =~ /(?:^|\r\n)0\r\n\r\n/;
    }
    return $buf;
}

# The orphan's request, started on a connection of its own; on the direct
# path one that has served the pool once already, so the httpd child that
# serves it knows the pool (the runner named it) and takes the worker itself.
sub start_orphan {
    my ($pool, $direct) = @_;
    my $path = "/pool/$pool/app.pl?sc=no-abort&ticks=2000&gap=0.05";
    return hstart($path)->{sock} unless $direct;
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $vars->{port},
                                  Proto => 'tcp', Timeout => 5) or die "connect: $!";
    $s->autoflush(1);
    print $s "GET /pool/$pool/app.pl HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    my $head = read_response($s);
    die "warm-up on the orphan's connection: $head\n" unless $head =~ m{^HTTP/1\.1 200};
    sleep 0.2; # the runner publishes the worker right after its response
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    return $s;
}

for my $case (['orphan_relay', 0, 'relayed'], ['orphan', 1, 'direct']) {
    my ($pool, $direct, $how) = @$case;
    ok t_cmp(hget("/pool/$pool/app.pl")->{code}, 200, "$how: the pool serves");
    my $log0 = length log_text();
    # 100 s of ticks, no-abort; the client leaves after 0.4 s.
    my $sock = start_orphan($pool, $direct);
    sleep 0.4;
    close $sock;
    my $t0 = time;
    my $gone = wait_for(sub { my $p = pool_of(status(), $pool);
                              $p && $p->{counters}{deaths}{timeout} }, 6, 0.1);
    my $took = time - $t0;
    my $log = substr(log_text(), $log0);
    # CGIPLUS2505: the runner drains a worker a child handed back.
    ok t_cmp($log =~ /CGIPLUS2505: draining worker pid \d+ of \S+app\.pl/ ? 'direct' : 'relayed',
             $how, "$how: the request went the way meant");
    ok t_cmp($gone ? 1 : 0, 1, "$how: the orphan is stopped (counted as a timeout)");
    ok t_cmp($took > 1.2 && $took < 4.5 ? 1 : 0, 1,
             sprintf('%s: about one output timeout after its client left (%.1f s)', $how, $took));
    ok t_cmp($log =~ /CGIPLUS2084: worker pid \d+ of \S+app\.pl still runs the request of a client that left \d+ ms ago \(no-abort\); stopping it/
             ? 1 : 0, 1, "$how: and it is logged with its id (2084)");
    my $r = hget("/pool/$pool/app.pl", timeout => 10);
    ok t_cmp($r->{code}, 200, "$how: the pool slot serves again");
}
