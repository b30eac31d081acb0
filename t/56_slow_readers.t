# Slow readers cannot hold a pool (issue 20, hole 7). Four clients with a
# small receive buffer read an 8 MiB response 4 KiB every 300 ms from a pool
# of two workers; meanwhile ordinary requests to that pool must get 200 at
# once: the module keeps what a client cannot take yet (memory up to
# CGIplusResponseBuffer, then an unlinked spool file) and frees the worker
# as soon as the script has written the whole response. Then the slow
# clients read the rest at full speed: every byte is right, and no spool
# file is left (none open in an httpd child, none in the directory). A
# stream that pauses with data held reaches its client as soon as the
# client reads, not when the script writes again. On the direct path
# (/pool/slowrd/) and relayed (/pool/slowrdr/, CGIplusDirect off); and
# over TLS, where mod_ssl turns every byte into records the core must not
# hold too many of: two clients that read nothing leave both workers idle.
# A client that takes nothing for httpd's Timeout while the script still
# runs is given up, as a blocked write would be (1070).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use IO::Select;
use IO::Socket::SSL;
use JSON::PP ();
use LWP::UserAgent;
use Socket qw(PF_INET SOCK_STREAM SOL_SOCKET SO_RCVBUF inet_aton pack_sockaddr_in);
use Time::HiRes qw(sleep time);

my $SIZE = 8 * 1024 * 1024;
my $SLOW = 4;

plan tests => 2 * 9 + 2 * 3 + 2;
$SIG{PIPE} = 'IGNORE';

my ($host, $port) = split /:/, Apache::TestRequest::hostport();
my $logs = Apache::Test::vars('t_logs');
my $spool = "$logs/cgiplus-response";

# 64-byte lines: k in ten digits, 53 dots, a newline (t/htdocs/pool/big.pl).
my $want = join '', map { sprintf('%010d', $_) . ('.' x 53) . "\n" } 0 .. $SIZE / 64 - 1;

sub slow_open {
    my ($path, $tls_port) = @_;
    socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
    # before connect: the window the client offers stays small
    setsockopt($s, SOL_SOCKET, SO_RCVBUF, pack('i', 4096)) or die "SO_RCVBUF: $!";
    connect($s, pack_sockaddr_in($tls_port || $port, inet_aton($host))) or die "connect: $!";
    IO::Socket::SSL->start_SSL($s, SSL_verify_mode => SSL_VERIFY_NONE)
        or die "TLS: $IO::Socket::SSL::SSL_ERROR" if $tls_port;
    syswrite $s, "GET $path HTTP/1.1\r\nHost: $host\r\nConnection: close\r\n\r\n";
    return { s => $s, data => '', eof => 0 };
}
# Reads at most $max bytes of what is there (all that comes, if $max is 0,
# until end of file or $timeout).
sub slow_read {
    my ($c, $max, $timeout) = @_;
    my $sel = IO::Select->new($c->{s});
    my $end = time + ($timeout // 0);
    while (!$c->{eof} && $sel->can_read($max ? 0 : $end - time > 0 ? $end - time : 0)) {
        my $n = sysread $c->{s}, $c->{data}, $max || 262144, length $c->{data};
        $c->{eof} = 1 unless $n;
        last if $max || time > $end;
    }
}
sub body_of {
    my ($raw) = @_;
    my ($head, $rest) = split /\r\n\r\n/, $raw, 2;
    return (0, '') unless defined $rest && $head =~ m{^HTTP/1\.1 (\d+)};
    my $code = $1;
    return ($code, $rest) unless $head =~ /^Transfer-Encoding:\s*chunked/mi;
    my ($out, $pos) = ('', 0);
    while ($rest =~ /\G([0-9a-fA-F]+)[^\r\n]*\r\n/gc) {
        my $n = hex $1;
        last if $n == 0;
        $out .= substr($rest, pos($rest), $n);
        pos($rest) = pos($rest) + $n + 2;
    }
    return ($code, $out);
}
sub get {
    my ($path) = @_;
    my $c = slow_open($path);
    slow_read($c, 0, 10);
    return (body_of($c->{data}))[0];
}
# The descriptors of httpd's children that are spool files.
sub spool_fds {
    open my $fh, '<', "$logs/httpd.pid" or return -1;
    my ($ppid) = <$fh> =~ /(\d+)/;
    my $n = 0;
    for my $p (glob '/proc/[0-9]*') {
        open my $st, '<', "$p/stat" or next;
        my @f = split ' ', (split /\) /, scalar <$st>, 2)[1] // '';
        next unless ($f[1] // 0) == $ppid;
        for my $fd (glob "$p/fd/*") {
            my $to = readlink($fd) // '';
            $n++ if index($to, "$spool/") == 0;
        }
    }
    return $n;
}

for my $case (['direct path', '/pool/slowrd/'], ['relayed', '/pool/slowrdr/']) {
    my ($name, $loc) = @$case;
    t_cmp(get("${loc}big.pl?size=100"), 200, "$name: warm");
    my @slow = map { slow_open("${loc}big.pl?size=$SIZE") } 1 .. $SLOW;
    my (@codes, $worst, $spooled);
    my $t0 = time;
    my $next = $t0;
    while (time - $t0 < 5) {
        if (time >= $next) {
            slow_read($_, 4096) for @slow;
            $next += 0.3;
        }
        if (time - $t0 > 0.5) { # the slow ones have had their workers
            my $t = time;
            push @codes, get("${loc}big.pl?size=100");
            $worst = time - $t if !defined $worst || time - $t > $worst;
            $spooled = spool_fds() if !$spooled;
        }
        sleep 0.05;
    }
    my @bad = grep { $_ != 200 } @codes;
    ok t_cmp(scalar @bad, 0, "$name: " . scalar(@codes) . " ordinary requests while $SLOW "
             . "clients read 8 MiB slowly, all 200 (not: @bad)");
    ok t_cmp(defined $worst && $worst < 1.5 ? 1 : 0, 1,
             sprintf("$name: none waited (the slowest %.2f s)", $worst // -1));
    ok t_cmp(($spooled // 0) > 0 ? 1 : 0, 1, "$name: meanwhile responses are spooled ("
             . ($spooled // 0) . " spool files open in httpd's children)");
    my $read = 0;
    $read += length $_->{data} for @slow;
    ok t_cmp($read < $SLOW * $SIZE / 2 ? 1 : 0, 1, "$name: the slow clients had read "
             . "little ($read bytes)");
    # Now at full speed: every byte right.
    slow_read($_, 0, 60) for @slow;
    my $exact = grep { my @cb = body_of($_->{data}); $cb[0] == 200 && $cb[1] eq $want } @slow;
    ok t_cmp($exact, $SLOW, "$name: $SLOW responses of $SIZE bytes, byte-exact");
    close $_->{s} for @slow;
    my $left = -1;
    for (1 .. 30) {
        last if ($left = spool_fds()) == 0;
        sleep 0.1;
    }
    ok t_cmp($left, 0, "$name: no spool file open afterwards");
    my @files = ('(no directory)');
    if (opendir(my $d, $spool)) { @files = grep { !/^\.\.?$/ } readdir $d }
    ok t_cmp("@files", '', "$name: none in $spool");
}

# A stream that pauses while its client lags: 1 MiB, "MARK", 3 s of
# nothing, "END". The client reads nothing for a second (the megabyte is
# held), then reads: MARK comes at once, not with END. Both cases at once
# (their pools are separate; their 3 s pauses overlap).
{
    my @cases = (['direct path', '/pool/slowrd/'], ['relayed', '/pool/slowrdr/']);
    my @c = map { slow_open("$_->[1]big.pl?size=1048576&mark=3") } @cases;
    sleep 1;
    my @marked;
    for my $c (@c) {
        my $t = time;
        my $body = '';
        while (!$c->{eof} && $body !~ /MARK\n/ && time - $t < 5) {
            slow_read($c, 0, 0.1);
            $body = (body_of($c->{data}))[1];
        }
        push @marked, [$body =~ /MARK\n\z/ ? 1 : 0, time - $t];
    }
    for my $i (0 .. $#cases) {
        my ($name, $c) = ($cases[$i][0], $c[$i]);
        ok t_cmp($marked[$i][0], 1, sprintf("$name: the held part of a paused stream "
                 . "came as the client read (MARK after %.2f s, END not yet)", $marked[$i][1]));
        slow_read($c, 0, 10);
        my $body = (body_of($c->{data}))[1];
        ok t_cmp(length($body) . ' ' . substr($body, -10), (1048576 + 9) . " \nMARK\nEND\n",
                 "$name: then the end, all of it");
        close $c->{s};
    }
}

# TLS: two clients (as many as the pool's workers) read nothing at all;
# both workers must be idle again while they still wait (the responses
# wholly held), then an ordinary request is served, then they read it all.
my $tls = Apache::Test::config()->port('cgiplus_ssl');
my $ua = LWP::UserAgent->new(timeout => 20);
sub busy {
    my ($pool) = @_;
    my $r = $ua->get("http://$host:$port/cgiplus-status?json");
    my $st = eval { JSON::PP::decode_json($r->content) } or return -1;
    my ($p) = grep { grep { $_ eq "POOL_$pool" } @{ $_->{settings}{env} || [] } } @{ $st->{pools} };
    return $p ? scalar(grep { $_->{state} eq 'busy' } @{ $p->{workers} }) : -1;
}
for my $case (['TLS, direct path', 'slowrd'], ['TLS, relayed', 'slowrdr']) {
    my ($name, $pool) = @$case;
    my @slow = map { slow_open("/pool/$pool/big.pl?size=$SIZE", $tls) } 1 .. 2;
    my ($t0, $busy) = (time, -1);
    sleep 0.2 while time - $t0 < 15 && ($busy = busy($pool)) != 0;
    ok t_cmp($busy, 0, sprintf("$name: both workers idle while their clients read nothing "
             . "(after %.1f s)", time - $t0));
    ok t_cmp(get("/pool/$pool/big.pl?size=100"), 200, "$name: an ordinary request is served");
    my $exact = 0;
    for my $c (@slow) {
        my $sel = IO::Select->new($c->{s});
        while ($c->{s}->pending || $sel->can_read(10)) {
            my $n = sysread $c->{s}, $c->{data}, 262144, length $c->{data};
            last unless $n;
        }
        my @cb = body_of($c->{data});
        $exact++ if $cb[0] == 200 && $cb[1] eq $want;
        close $c->{s};
    }
    ok t_cmp($exact, 2, "$name: both responses byte-exact");
}

# Timeout 3 (the cgiplus_body virtual host): a client that reads nothing
# while its script, 8 MiB written, sleeps 8 s is given up after about 3 s.
{
    my $elog = Apache::Test::vars('t_logs') . '/error_log';
    my $from = -s $elog;
    my $bport = Apache::Test::config()->port('cgiplus_body');
    socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
    setsockopt($s, SOL_SOCKET, SO_RCVBUF, pack('i', 4096));
    connect($s, pack_sockaddr_in($bport, inet_aton($host))) or die "connect: $!";
    syswrite $s, "GET /pool/slowrd/big.pl?size=8388608&mark=8 HTTP/1.1\r\nHost: $host\r\n\r\n";
    my ($t0, $log) = (time, '');
    while (time - $t0 < 8) {
        open my $fh, '<', $elog or last;
        seek $fh, $from, 0;
        $log = do { local $/; <$fh> } // '';
        last if $log =~ /CGIPLUS1070: client went away during the response of \S+big\.pl/;
        sleep 0.2;
    }
    my $after = time - $t0;
    ok t_cmp($log =~ /timeout specified has expired: \[client [^]]+\] CGIPLUS1070: client went away during the response of \S+big\.pl/
             && $after > 2.5 && $after < 7 ? 1 : 0, 1,
             sprintf('a client that takes nothing for Timeout is given up (1070 after %.1f s)', $after));
    close $s;
    ok t_cmp(get('/pool/slowrd/big.pl?size=100'), 200, 'and the pool serves on');
}
