# A stream of server-sent events whose client resets it between two
# events, on a pool of one worker (PHP through php-cgi, CGIplusEngine php:
# /php1/ on the direct path, /phpr/ relayed): the module sees the reset
# while it waits for the script's next event (3610: an HTTP/2 RST_STREAM,
# an HTTP/1.1 connection reset), as it does before a response begins
# (1077, 1710), and tells the worker at once; so PHP learns it at its very
# next write (event 2 of events 2.5 s apart) and ends the script, and the
# worker is free for the next request. Before, the reset was seen only when
# event 2 was written to the client, and PHP learnt it at event 3: the
# next request waited one event more.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use Socket qw(SOL_SOCKET SO_LINGER);
use Time::HiRes qw(sleep time);
use lib 't/htdocs/apps';
use AppTest qw(curl url);

plan tests => 2 * 2 * 3,
    need { 'needs php-cgi' => -x '/usr/bin/php-cgi',
           'needs python3-h2 (Debian package python3-h2)' =>
               !system('/usr/bin/python3 -c "import h2" 2>/dev/null') };

my $vars = Apache::Test::config()->{vars};
my $h2port = Apache::Test::config()->port('cgiplus_h2c');
my $logf = "$vars->{t_logs}/error_log";
sub log_from { open my $fh, '<', $logf or return ''; seek $fh, $_[0], 0; local $/; <$fh> // '' }

# HTTP/1.1 on one connection (this httpd child learns the pool): $next,
# then the stream, reset (SO_LINGER 0) 0.3 s after its first event.
sub h1_reset {
    my ($stream, $next) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$vars->{port}", Timeout => 20)
        or die "connect: $!";
    my $buf = '';
    print $s "GET $next HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    # its whole response: a Content-Length, or chunks
    my $whole = sub {
        my ($len) = $buf =~ /\r\nContent-Length: (\d+)\r\n/i;
        my $h = index($buf, "\r\n\r\n");
        return $h >= 0 && (defined $len ? length($buf) >= $h + 4 + $len : $buf =~ /\r\n0\r\n\r\n/);
    };
    while (!$whole->()) { sysread($s, $buf, 65536, length $buf) or last }
    print $s "GET $stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    $buf = '';
    while ($buf !~ /data: event 1\n\n/) { sysread($s, $buf, 65536, length $buf) or last }
    my $first = $buf =~ /data: event 1\n\n/ ? 1 : 0;
    sleep 0.3;
    setsockopt($s, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0)) or die "SO_LINGER: $!";
    close $s; # a reset
    my ($c) = curl(url($next));
    return "S " . ($first ? 200 : '-') . " D $c";
}

my $n = 0;
for my $case (['php1', 'direct path'], ['phpr', 'relayed']) {
    my ($p, $how) = @$case;
    for my $proto ('h2c', 'HTTP/1.1') {
        $n++;
        my $mark = "$vars->{t_logs}/sse_reset.$n";
        unlink $mark;
        open my $mf, '>', $mark or die "$mark: $!";
        close $mf;
        chmod 0666, $mark;
        my $off = -s $logf;
        my $stream = "/$p/sse.php?n=20&ms=2500&mark=$mark";
        my $next = "/$p/sse.php?n=1";
        my $out = $proto eq 'h2c' ? `/usr/bin/python3 t/lib/h2sse.py $h2port '$stream' '$next' 2>&1`
                                  : h1_reset($stream, $next);
        chomp $out;
        ok t_cmp($out, 'S 200 D 200', "/$p ($how, $proto): the stream began, the next request is served");
        # PHP learns it at its next write: event 2 (at 2.5 s), with the fix
        my $got = '';
        for (1 .. 100) {
            open my $fh, '<', $mark or last;
            $got = do { local $/; <$fh> } // '';
            last if $got;
            sleep 0.1;
        }
        chomp $got;
        ok t_cmp($got, 'aborted=1 event=2',
                 "/$p ($how, $proto): PHP learnt the client left at its first write after the reset");
        my $log = log_from($off);
        ok t_cmp($log =~ /CGIPLUS3610: client reset its connection \(or HTTP\/2 stream\) while the response of \S+sse\.php waited/ ? 1 : 0, 1,
                 "/$p ($how, $proto): the module saw the reset while it waited for the next event (3610)");
    }
}
