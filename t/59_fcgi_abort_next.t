# The request after an aborted one on a FastCGI pool of one worker is
# answered at once, by the same worker: after FCGI_ABORT_REQUEST the
# runner cuts the connection and waits for the application to be back in
# accept() (a GET_VALUES on a new connection: docs/PROTOCOL.md), and a
# request that waited on anything an application does not send would
# wait for the gone client's bound (seconds; 2084) or a timeout. Real
# applications: a libfcgi program (fcgi_app), Perl's CGI::Fast (fast.pl),
# php-cgi, and raw.py (the specification's responder, which keeps its
# connection after an aborted request where the libraries close it);
# relayed and on the direct path. Three ways a request is given up: its
# client leaves in the middle of its body, in the middle of its response
# (the applications that stop there: php-cgi at its next write, raw.py at
# ABORT_REQUEST; fcgi_app's loop ignores its write errors and runs on by
# design), and the runner loses its body (2902: strace fails the
# runner's pread64 of its spool file). "At once" is a hang check only: the
# next request must be answered before a 10 s client timeout. A PHP
# script with ignore_user_abort whose client left mid-body runs on to its
# end (6 s), then its worker serves again: it was killed 5 s after its
# client left, as one that waited for a body that would not come (2014),
# though ABORT_REQUEST had ended it.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use Time::HiRes qw(sleep);
use lib 't/lib', 't/htdocs/apps', 't/htdocs/pool/lib';
use MainLog qw(log_offset log_since log_wait);
use PoolTest qw(strace_on strace_off runner_pid wait_for);
use AppTest qw(url);

my $php = -x '/usr/bin/php-cgi';
# [what, pool, page that answers pid=, page that streams (mid-response)]
my @apps;
for my $side (['relayed', 'fcgiabr', 'phpr'], ['direct', 'fcgiab', 'php1']) {
    my ($how, $f, $p) = @$side;
    push @apps, ["libfcgi ($how)", "/$f/app", undef],
                ["CGI::Fast ($how)", "/$f/fast.pl", undef],
                ["raw.py ($how)", "/$f/raw.py", "/$f/raw.py?slow"],
                ["php-cgi ($how)", "/$p/info.php", "/$p/sse.php?n=100&ms=100"];
}
my $relayed = grep { $_->[0] =~ /relayed/ } @apps;
my $streams = grep { $_->[2] } @apps;
plan tests => 2 * @apps + 2 * $streams + 3 * $relayed + 3,
     need { 'needs strace' => system('command -v strace >/dev/null 2>&1') == 0 };

my $vars = Apache::Test::config()->{vars};
my $port = $vars->{port};
my $size = 2 * 1024 * 1024;
my $body = "$vars->{t_logs}/abort-next-body";
open my $bf, '>', $body or die "$body: $!";
print $bf 'b' x $size;
close $bf;

# A GET, with a 10 s bound: "code pid" (pid 0 if none was said).
sub next_pid {
    my ($path) = @_;
    my $out = `curl -s -m 10 -w '\n%{http_code}' ${\ url($path)}`;
    my ($code) = $out =~ /(\d{3})\z/;
    my ($pid) = $out =~ /^pid=(\d+)$/m;
    return ($code // 0) . ' ' . ($pid // 0);
}

# A POST of 4 MB whose client sends 256 KiB of it and leaves.
sub leave_mid_body {
    my ($path) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 10) or die "connect: $!";
    print $s "POST $path HTTP/1.1\r\nHost: 127.0.0.1\r\n"
           . "Content-Type: application/octet-stream\r\nContent-Length: 4000000\r\n\r\n";
    print $s 'a' x (256 * 1024);
    sleep 0.3; # (its worker has the request: not asserted, only likelier)
    close $s;
}

# A GET whose client reads the start of its response and leaves; whether
# it got one.
sub leave_mid_response {
    my ($path) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 10) or die "connect: $!";
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    my $got = '';
    local $SIG{ALRM} = sub { die "timeout\n" };
    alarm 10;
    eval { sysread($s, $got, 65536, length $got) while $got !~ /\r\n\r\n./s };
    alarm 0;
    close $s;
    return $got =~ m{^HTTP/1\.1 200 } ? 1 : 0;
}

for my $a (@apps) {
    my ($what, $page, $stream) = @$a;
    if ($page =~ /php/ && !$php) {
        skip('no php-cgi', 1) for 1 .. 2 + ($stream ? 2 : 0) + ($what =~ /relayed/ ? 3 : 0);
        next;
    }
    my ($first) = next_pid($page) =~ /^200 (\d+)$/;
    $first //= -1;
    leave_mid_body($page);
    ok t_cmp(next_pid($page), "200 $first",
             "$what: after a client left mid-body, the next request is answered by the same worker");
    if ($stream) {
        ok t_cmp(leave_mid_response($stream), 1, "$what: a client leaves a response it started to get");
        ok t_cmp(next_pid($page), "200 $first",
                 "$what: after a client left mid-response, the next request is answered by the same worker");
    }
    ok t_cmp(next_pid($page), "200 $first", "$what: and the one after it");
    next unless $what =~ /relayed/;
    # The runner gives up a request whose body it cannot read back: a
    # chunked upload past 1 MiB is spooled to a file.
    my $off = log_offset();
    my $st = strace_on(runner_pid(), '-e', 'trace=pread64', '-e', 'inject=pread64:error=EIO');
    my $code = `curl -s -m 20 -o /dev/null -w '%{http_code}' -H 'Expect:' -H 'Transfer-Encoding: chunked' --data-binary \@$body ${\ url($page)}`;
    strace_off($st);
    ok t_cmp($code, 500, "$what: its body lost (spool read error): 500");
    ok t_cmp(log_wait($off, qr{CGIPLUS2902: .*? \(\Q$page\E\) .*?FastCGI worker pid \Q$first\E }) ? 1 : 0, 1,
             "$what: the runner gave up the request (2902) on that worker");
    ok t_cmp(next_pid($page), "200 $first",
             "$what: after it, the next request is answered by the same worker");
}
unlink $body;

# php-cgi (relayed): a script that ignores its client's leaving, mid-body.
if (!$php) {
    skip('no php-cgi', 1) for 1 .. 3;
} else {
    my $mark = "$vars->{t_logs}/abort-mark";
    open my $m, '>', $mark or die "$mark: $!";
    close $m;
    chmod 0666, $mark;
    my ($first) = next_pid('/phpr/info.php') =~ /^200 (\d+)$/;
    $first //= -1;
    my $off = log_offset();
    leave_mid_body('/phpr/ignore_abort.php?ms=6000');
    my $done = wait_for(sub { open my $fh, '<', $mark or return 0; (<$fh> // '') =~ /^finished pid=(\d+)$/ ? $1 : 0 }, 20);
    ok t_cmp($done, $first, 'php-cgi: a script with ignore_user_abort whose client left mid-body runs to its end');
    ok t_cmp(log_since($off) =~ /CGIPLUS2014\b/ ? 1 : 0, 0, 'its worker not killed as one waiting for a body (no 2014)');
    ok t_cmp(next_pid('/phpr/info.php'), "200 $first", 'and it serves the next request');
    unlink $mark;
}
