# Slow uploaders cannot hold a pool (issue 10, hole 5). A body up to
# CGIplusBodyBuffer (64 KiB by default) is read in full before the request
# goes to the runner, so before a worker is taken: 40 clients sending their
# 40-byte bodies a byte every 0.5 s leave the pool of 2 workers free for
# everyone else. A larger body must keep CGIplusBodyMinRate (here 20000
# bytes/s): below it the request is answered 408 (CGIPLUS1042).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use IO::Socket::INET;
use IO::Select;
use Time::HiRes qw(sleep time);

plan tests => 8;
$SIG{PIPE} = 'IGNORE'; # a client the server already answered

Apache::TestRequest::module('cgiplus_body');
my ($host, $port) = split /:/, Apache::TestRequest::hostport();
my $errlog = Apache::Test::vars('t_logs') . '/error_log';
sub log_text { open my $fh, '<', $errlog or return ''; local $/; return <$fh> }

sub open_post {
    my ($path, $len) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Timeout => 5)
        or die "connect: $!";
    $s->autoflush(1);
    print $s "POST $path HTTP/1.1\r\nHost: $host\r\nConnection: close\r\n"
           . "Content-Length: $len\r\n\r\n";
    return $s;
}
sub response {
    my ($s, $timeout) = @_;
    my ($buf, $end) = ('', time + ($timeout // 20));
    my $sel = IO::Select->new($s);
    while (time < $end && $sel->can_read($end - time)) {
        my $n = sysread $s, $buf, 65536, length $buf;
        last unless $n;
    }
    return $buf =~ m{^HTTP/1\.\d (\d+)} ? ($1, $buf) : (0, $buf);
}
sub get {
    my ($path) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Timeout => 5) or return 0;
    print $s "GET $path HTTP/1.1\r\nHost: $host\r\nConnection: close\r\n\r\n";
    return (response($s, 10))[0];
}

ok t_cmp(get('/pool/body/slowread.pl?gap=0'), 200, 'the pool serves');

# --- 40 slow clients, a byte every 0.5 s; meanwhile ordinary requests.
my @slow = map { open_post('/pool/body/slowread.pl?gap=0', 40) } 1 .. 40;
my (@codes, $worst);
my $t0 = time;
my $next = $t0;
while (time - $t0 < 6) {
    if (time >= $next) {
        print $_ 'x' for @slow;
        $next += 0.5;
    }
    my $t = time;
    push @codes, get('/pool/body/slowread.pl?gap=0');
    $worst = time - $t if !defined $worst || time - $t > $worst;
    sleep 0.1;
}
my $bad = grep { $_ != 200 } @codes;
ok t_cmp($bad, 0, scalar(@codes) . ' ordinary requests while 40 clients trickle, all 200 (not: '
         . join(',', grep { $_ != 200 } @codes) . ')');
ok t_cmp($worst < 1.5 ? 1 : 0, 1, sprintf('none waited long (the slowest %.2f s)', $worst // -1));
# The slow ones finish their bodies and are served too. (The rest at once:
# trickling it for the 14 s left showed nothing the window above did not.)
print $_ 'x' x 40 for @slow; # whatever is missing (the server takes only 40)
my @done = map { (response($_, 10))[0] } @slow;
ok t_cmp(scalar(grep { $_ == 200 } @done), 40, 'and the 40 slow uploads get 200 in the end');

# --- bigger than the buffer and below the minimum rate: 408.
my $log0 = length log_text();
my $s = open_post('/pool/body/rate/slowread.pl?gap=0', 200000);
print $s 'x' x 70000;
$t0 = time;
my ($code, $resp) = (0, '');
my $sel = IO::Select->new($s);
while (time - $t0 < 15) {
    if ($sel->can_read(0.5)) { ($code, $resp) = response($s, 2); last }
    last unless print $s 'x' x 1000;
}
ok t_cmp($code, 408, sprintf('a 200 kB body arriving at 2 kB/s: 408 after %.1f s', time - $t0));
ok t_cmp(substr(log_text(), $log0) =~ /CGIPLUS1042: the request body of \S+slowread\.pl arrives slower than CGIplusBodyMinRate 20000 bytes\/s/
         ? 1 : 0, 1, 'logged with its id (1042)');
# At full speed it passes.
$s = open_post('/pool/body/rate/slowread.pl?gap=0', 200000);
print $s 'x' x 200000;
($code, $resp) = response($s, 10);
ok t_cmp("$code " . ($resp =~ /read=(\d+)/ ? $1 : -1), '200 200000',
         'the same body at full speed: 200, all of it read');
ok t_cmp(get('/pool/body/slowread.pl?gap=0'), 200, 'the pool still serves');
