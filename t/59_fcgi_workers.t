# Issue 22, part 2: FastCGI applications as pool workers (CGIplusMode
# fastcgi), started as mod_fcgid starts them and spoken to in FastCGI, on
# the direct path (/fcgi/) and relayed by the runner (/fcgir/): a libfcgi C
# program (t/src/fcgi_app), a Perl CGI::Fast program and raw.py (a
# responder without a library, which shows what it received). Persistence,
# bodies, PATH_INFO, stderr records in the virtual host's log; a client
# that leaves gets its worker ABORT_REQUEST and the worker serves on; a
# crash or a close before END_REQUEST fails only its request (502);
# FCGI_OVERLOADED and a full pool answer 503 with Retry-After; a timeout
# 504; an unasked FCGI_UNKNOWN_TYPE is read past; an application that ends
# its request before reading its body is replaced; direct requests never
# pass the runner; the status page and metrics show FastCGI pools.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use IO::Socket::INET;
use JSON::PP ();
use Time::HiRes qw(sleep time);
use lib 't/htdocs/apps';
use AppTest qw(curl url);
use lib 't/htdocs/pool/lib';
use PoolTest qw(kept_get kept_direct);

plan tests => 132,
    need { 'needs CGI::Fast (libcgi-fast-perl)' => !system('perl -MCGI::Fast -e1 2>/dev/null'),
           'needs t/src/fcgi_app (make builds it where libfcgi-dev is installed)' => -x 't/src/fcgi_app' };

my $vars = Apache::Test::config()->{vars};
my $logf = "$vars->{t_logs}/error_log";
my $ledger = "$vars->{t_logs}/fcgi-ledger";
my $vhlog = "$vars->{t_logs}/vhlog_error_log"; # a virtual host's own ErrorLog (extra_cgi.conf.in)
my $vhp = do { my $old = Apache::TestRequest::module('cgiplus_vhlog');
               my $h = Apache::TestRequest::hostport(); Apache::TestRequest::module($old); $h };
unlink $ledger;
open my $lf, '>', $ledger or die "$ledger: $!";
close $lf;
chmod 0666, $ledger;

sub kv { my %h = $_[0] =~ /^(\w+)=(.*)$/mg; \%h }
sub log_text { open my $fh, '<', $_[0] // $logf or return ''; local $/; <$fh> }
sub ledger_lines { open my $fh, '<', $ledger or return (); my @l = <$fh>; chomp @l; @l }
sub wait_for { my ($cond, $secs) = @_; for (1 .. ($secs // 5) * 20) { return 1 if $cond->(); sleep 0.05 } 0 }
# The checksum fcgi_app computes of a body.
sub sum { my $s = 0; $s = ($s * 31 + $_) % 4294967296 for unpack 'C*', $_[0]; $s }

# A raw HTTP/1.1 request whose client reads the first bytes of the answer
# and leaves.
sub leave_after {
    my ($path, $bytes) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$vars->{port}", Timeout => 10) or die "connect: $!";
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    my $got = '';
    while (length($got) < $bytes) {
        my $n = sysread($s, $got, 4096, length $got);
        last unless $n;
    }
    close $s;
    return $got;
}

for my $p (qw(fcgi fcgir)) {
    my $how = $p eq 'fcgi' ? 'direct path' : 'relayed';

    # The libfcgi program: one process across requests.
    my ($code, $h, $body) = curl(url("/$p/app"));
    my $e1 = kv($body);
    ok t_cmp($code, 200, "/$p/app ($how): a libfcgi program answers");
    ok t_cmp($h->{'content-type'}, 'text/plain', "/$p/app: its header");
    (undef, undef, $body) = curl(url("/$p/app"));
    my $e2 = kv($body);
    ok t_cmp("$e2->{pid} " . ($e2->{request} - $e1->{request}), "$e1->{pid} 1",
             "/$p/app: the same process serves the next request");
    ok t_cmp($e1->{SCRIPT_FILENAME}, "$vars->{top_dir}/t/src/fcgi_app", "/$p/app: SCRIPT_FILENAME");
    ok t_cmp("$e1->{REQUEST_METHOD} $e1->{CONTENT_LENGTH} $e1->{body_len}", 'GET 0 0', "/$p/app: a GET, no body");

    # Bodies, one read whole before a worker is taken and one streamed.
    for my $len (1000, 300_000) {
        my $data = join '', map { chr(($_ * 7 + $len) % 256) } 1 .. $len;
        open my $bf, '>', "$vars->{t_logs}/fcgi-body" or die $!;
        print $bf $data;
        close $bf;
        ($code, undef, $body) = curl('--data-binary', "\@$vars->{t_logs}/fcgi-body",
                                     '-H', 'Content-Type: application/octet-stream', url("/$p/app"));
        my $e = kv($body);
        ok t_cmp("$code $e->{CONTENT_LENGTH} $e->{body_len} $e->{body_sum}", "200 $len $len " . sum($data),
                 "/$p/app: a $len-byte body arrives whole as STDIN");
    }
    ($code, undef, $body) = curl('-H', 'Transfer-Encoding: chunked', '--data-binary', 'chunky', url("/$p/app"));
    ok t_cmp(kv($body)->{body_len} . ' ' . kv($body)->{CONTENT_LENGTH}, '6 6', "/$p/app: a chunked body, with its exact CONTENT_LENGTH");

    ($code, undef, $body) = curl(url("/$p/app/some/path?out=70000"));
    my $e = kv($body);
    ok t_cmp("$code $e->{SCRIPT_NAME} $e->{PATH_INFO}", "200 /$p/app /some/path", "/$p/app: SCRIPT_NAME and PATH_INFO");
    ok t_cmp(($body =~ /body_sum=\d+\n([a-z]+)$/)[0] // '', join('', map { chr(97 + $_ % 26) } 0 .. 69_999),
             "/$p/app: a 70000-byte answer, whole");

    # STDERR records (and descriptor 2) go to the error log.
    my $mark = length log_text();
    ($code, undef, $body) = curl(url("/$p/app?stderr"));
    my $n = kv($body)->{request};
    ok wait_for(sub { substr(log_text(), $mark) =~ /CGIPLUS1050: stderr from \S+fcgi_app \(pid $e1->{pid}\): fcgi_app: stderr record of request $n\b/ }),
       1, "/$p/app: a STDERR record is logged naming the script and the pid";
    ok wait_for(sub { substr(log_text(), $mark) =~ /fcgi_app: descriptor 2 of pid $e1->{pid}/ }),
       1, "/$p/app: what it writes on descriptor 2 is logged too";
    # In a virtual host with an ErrorLog of its own, its STDERR records go
    # there, as a CGIplus worker's stderr does, and not to the main log.
    {
        my ($vmark, $mmark) = (length log_text($vhlog), length log_text());
        my (undef, undef, $vb) = curl("http://$vhp/$p/app?stderr");
        my ($vn, $vpid) = (kv($vb)->{request} // -1, kv($vb)->{pid} // -1);
        my $line = qr/CGIPLUS1050: stderr from \S+fcgi_app \(pid $vpid\): fcgi_app: stderr record of request $vn\b/;
        ok wait_for(sub { substr(log_text($vhlog), $vmark) =~ $line }), 1,
           "/$p/app: a STDERR record of a request to a virtual host goes to its own error log";
        ok t_cmp(substr(log_text(), $mmark) =~ $line ? 'main log too' : 'not in the main log',
                 'not in the main log', "/$p/app: and not to the main one");
    }

    # Perl CGI::Fast, unmodified.
    ($code, $h, $body) = curl(url("/$p/fast.pl?x=7"));
    my $f1 = kv($body);
    ok t_cmp("$code $f1->{x} $f1->{method}", '200 7 GET', "/$p/fast.pl ($how): CGI::Fast answers with its parameter");
    ok t_cmp($h->{'content-type'}, qr{^text/plain; charset=utf-8$}i, "/$p/fast.pl: CGI.pm's header");
    ($code, undef, $body) = curl('--data', 'x=posted', url("/$p/fast.pl/p/i"));
    my $f2 = kv($body);
    ok t_cmp("$code $f2->{x} $f2->{method} $f2->{PATH_INFO}", '200 posted POST /p/i', "/$p/fast.pl: a form POST");
    ok t_cmp("$f2->{pid} " . ($f2->{request} - $f1->{request}), "$f1->{pid} 1", "/$p/fast.pl: one Perl process");

    # A crash fails its own request only.
    ($code) = curl(url("/$p/app?crash"));
    ok t_cmp($code, 502, "/$p/app?crash: the worker dies before answering: 502");
    ok wait_for(sub { log_text() =~ /CGIPLUS1064: End of script output before headers: \S+fcgi_app \(worker pid \d+ exited with status 3 before its response\)/ }),
       1, "/$p/app?crash: logged with its exit status";
    ($code, undef, $body) = curl(url("/$p/app"));
    ok t_cmp($code, 200, "/$p/app: the next request is served");
    # A death after the header went out: either 502 (the module had not
    # begun the answer) or a response the client can tell is cut short
    # (curl 18 or 56: no last chunk), never a complete-looking 200.
    {
        my $out = `curl -s -o /dev/null -w '%{http_code}' --max-time 20 @{[url("/$p/app?crashmid")]}`;
        my $rc = $? >> 8;
        ok t_cmp($out eq '502' && $rc == 0 || $out eq '200' && ($rc == 18 || $rc == 56) ? 'failed' : "$out curl=$rc",
                 'failed', "/$p/app?crashmid: a death after its header is never a complete answer");
    }

    # raw.py: FCGI_OVERLOADED is 503 with Retry-After.
    $mark = length log_text();
    ($code, $h) = curl(url("/$p/raw.py?overloaded"));
    ok t_cmp("$code " . ($h->{'retry-after'} // 'none'), '503 1', "/$p/raw.py?overloaded: 503 with Retry-After");
    ($code, undef, $body) = curl(url("/$p/raw.py"));
    my $r1 = kv($body);
    ok t_cmp($code, 200, "/$p/raw.py: the worker that said overloaded serves on");
    # Its first request began with BEGIN_REQUEST, as from mod_fcgid: no
    # FCGI_GET_VALUES before it (Mojo::Server::FastCGI drops such a
    # connection).
    my ($first) = grep { /^$r1->{pid} 1 / } ledger_lines();
    ok t_cmp(($first // '') =~ s/^\d+ 1 //r, qr/^BEGIN PARAMS/, "/$p/raw.py: the worker's first record is BEGIN_REQUEST");
    # Read by the runner (always when relayed), it logs 2904 and httpd's own
    # line says why it answers 503 (1061); read by the child, 1902.
    my $by_runner = sub { substr(log_text(), $mark) =~ /CGIPLUS2904: FastCGI worker pid \d+ of \S+raw\.py refused request \d+ \(\S+\): overloaded/ &&
                          substr(log_text(), $mark) =~ /CGIPLUS1061: \S+raw\.py: its FastCGI application refused the request \(FCGI_OVERLOADED\); answering 503/ };
    my $by_child = sub { substr(log_text(), $mark) =~ /CGIPLUS1902: FastCGI worker pid \d+ of \S+raw\.py ended the request with protocol status 2 \(overloaded\)/ };
    ok wait_for($p eq 'fcgir' ? $by_runner : sub { $by_child->() || $by_runner->() }),
       1, "/$p/raw.py?overloaded: logged (" . ($p eq 'fcgir' ? '2904, then 1061' : '1902 read by the child, or 2904 and 1061') . ')';

    # A close before END_REQUEST: 502 for that request; the worker, still
    # listening, is connected to again.
    ($code) = curl(url("/$p/raw.py?close"));
    ok t_cmp($code, qr/^(502|200)$/, "/$p/raw.py?close: answered at once");
    ($code, undef, $body) = curl(url("/$p/raw.py"));
    ok t_cmp("$code " . kv($body)->{pid}, "200 $r1->{pid}", "/$p/raw.py: the same process serves on over a new connection");

    # A client that leaves: ABORT_REQUEST reaches the application, which
    # ends the request; the worker is not killed.
    my $seen = () = ledger_lines();
    my $got = leave_after("/$p/raw.py?slow", 40);
    ok t_cmp($got, qr/^HTTP\/1\.1 200/, "/$p/raw.py?slow: the client reads the start and leaves");
    ok wait_for(sub { my @l = ledger_lines(); grep { /^$r1->{pid} \d+ .*\bABORT\b/ } @l[$seen .. $#l] }, 8),
       1, "/$p/raw.py?slow: the application received ABORT_REQUEST";
    ($code, undef, $body) = curl(url("/$p/raw.py"));
    ok t_cmp("$code " . kv($body)->{pid}, "200 $r1->{pid}", "/$p/raw.py: and serves the next request (not killed)");

    # A libfcgi program whose client left: its connection is shut, its
    # writes fail (it does not look at ABORT_REQUEST), it finishes its
    # lines, reads the runner's GET_VALUES on a new connection once back in
    # accept(), and serves on.
    my $left_mark = length log_text();
    $got = leave_after("/$p/app?lines=15", 300);
    my ($left) = $got =~ /pid=(\d+)/;
    ok t_cmp($got, qr/^HTTP\/1\.1 200/, "/$p/app?lines=15: the client leaves mid-response");
    # libfcgi closes a connection it accepted when no record comes within 2
    # s: one connected for it ahead of a request (after the aborted one)
    # and left unused. That is not an application that closes after each
    # request (2926: a new connection for every request from then on).
    # The next request comes once that one is closed: the worker's
    # descriptor 3 (its accepted connection) is the aborted request's for
    # its 1.5 s of lines, then the one connected ahead, for 2 s, then none.
    my $lp0 = $left // 0;
    my $conn = sub { my @st = stat "/proc/$lp0/fd/3"; @st ? $st[1] : 0 };
    my $aborted = $conn->();
    wait_for(sub { my $c = $conn->(); $c && $c != $aborted }, 10);
    wait_for(sub { !$conn->() }, 10);
    my $back = wait_for(sub { (undef, undef, $body) = curl(url("/$p/app")); (kv($body)->{pid} // 0) == ($left // -1) }, 8);
    ok t_cmp($back, 1, "/$p/app: the worker whose client left (pid @{[$left // '?']}) serves again");
    my $lp = $left // 0;
    ok t_cmp(scalar(() = substr(log_text(), $left_mark) =~ m{CGIPLUS2926: FastCGI worker pid $lp }g), 0,
             "/$p/app: its unused connection closed by libfcgi is not taken for closing after each request");

    # An application that writes a second response with no request (issue
    # 20, hole 1): it never reaches the next request, whose answer is its
    # own; the worker is stopped as broken (a child finds the records when
    # it claims the worker, the runner when it looks at idle workers or
    # reads one it holds).
    $mark = length log_text();
    ($code, undef, $body) = curl(url("/$p/raw.py?late"));
    my ($late) = $body =~ /^late pid=(\d+)$/m;
    $late //= 'none';
    ok t_cmp($code, 200, "/$p/raw.py?late: answered");
    sleep 1; # its second response is written meanwhile (200 ms later)
    ($code, undef, $body) = curl(url("/$p/raw.py"));
    ok t_cmp("$code " . ($body =~ /PRIVATE/ ? $body : 'own'), '200 own',
             "/$p/raw.py: the next request gets its own answer, not what was written with none");
    ok t_cmp(kv($body)->{pid} // 0, qr/^(?!$late$)\d+$/, "/$p/raw.py: from another worker");
    ok wait_for(sub { substr(log_text(), $mark) =~ /CGIPLUS1130: \S+raw\.py \(worker pid $late\) wrote|CGIPLUS2025: worker pid $late of \S+raw\.py wrote|CGIPLUS2907: FastCGI worker pid $late of \S+raw\.py broke the protocol/ }),
       1, "/$p/raw.py?late: the worker is stopped as broken, logged";

    # A second answer after END_REQUEST, in the same write: the first is
    # the request's, the second nobody's, and the worker serves no more.
    $mark = length log_text();
    ($code, undef, $body) = curl(url("/$p/raw.py?trailing"));
    my ($tr) = $body =~ /^trailing pid=(\d+)$/m;
    $tr //= 'none';
    ok t_cmp("$code " . ($body =~ /PRIVATE/ ? 'PRIVATE' : 'own'), '200 own', "/$p/raw.py?trailing: its own answer");
    ($code, undef, $body) = curl(url("/$p/raw.py"));
    ok t_cmp("$code " . ($body =~ /PRIVATE/ ? $body : 'own'), '200 own',
             "/$p/raw.py: the next request gets its own answer, not the trailing one");
    ok t_cmp(kv($body)->{pid} // 0, qr/^(?!$tr$)\d+$/, "/$p/raw.py: from another worker");
    ok wait_for(sub { substr(log_text(), $mark) =~ /CGIPLUS2912: FastCGI worker pid $tr of \S+raw\.py wrote \d+ bytes after ending its request|CGIPLUS1903: FastCGI worker pid $tr of \S+raw\.py broke the protocol/ }),
       1, "/$p/raw.py?trailing: the worker is stopped as broken, logged";
    # FCGI_UNKNOWN_ROLE: not a responder, 502 (the worker is replaced);
    # logged by whoever read it (the child on the direct path, the runner
    # relaying).
    ($code) = curl(url("/$p/raw.py?role"));
    ok t_cmp($code, 502, "/$p/raw.py?role: FCGI_UNKNOWN_ROLE is 502");
    my $role_re = $p eq 'fcgi' ? qr/CGIPLUS1902: FastCGI worker pid \d+ of \S+raw\.py ended the request with protocol status 3 \(unknown role\); answering 502/
                               : qr/CGIPLUS2905: FastCGI worker pid \d+ of \S+raw\.py does not take the responder role/;
    ok wait_for(sub { log_text() =~ $role_re }), 1, "/$p/raw.py?role: logged (" . ($p eq 'fcgi' ? 1902 : 2905) . ')';

    # An FCGI_UNKNOWN_TYPE record nothing asked for: read past (the runner
    # logs it at debug: 2909), the answer is the request's, the worker
    # serves on.
    ($code, undef, $body) = curl(url("/$p/raw.py"));
    my $uk = kv($body)->{pid} // 'none';
    $mark = length log_text();
    ($code, undef, $body) = curl(url("/$p/raw.py?unknown"));
    ok t_cmp("$code " . (kv($body)->{pid} // 'none'), "200 $uk", "/$p/raw.py?unknown: its own answer, from the same worker");
    ($code, undef, $body) = curl(url("/$p/raw.py"));
    ok t_cmp("$code " . (kv($body)->{pid} // 'none'), "200 $uk", "/$p/raw.py: which serves on");
    if ($p eq 'fcgir') {
        ok wait_for(sub { substr(log_text(), $mark) =~ /CGIPLUS2909: FastCGI worker pid $uk of \S+raw\.py does not know record type 42/ }),
           1, "/$p/raw.py?unknown: the runner logged it (2909)";
        # A responder that ends its request with 4 MB of body still to
        # come: the client gets its answer; the worker, whose STDIN stream
        # the next request would start inside, is replaced (2906).
        my $big = "$vars->{t_logs}/fcgi-early-body";
        open my $bf, '>', $big or die "$big: $!";
        print $bf 'e' x (4 << 20);
        close $bf;
        $mark = length log_text();
        ($code, undef, $body) = curl('--data-binary', "\@$big", url("/$p/raw.py?early"));
        my ($ep) = $body =~ /^early pid=(\d+)$/m;
        $ep //= 'none';
        ok t_cmp("$code $ep", qr/^200 \d+$/, "/$p/raw.py?early: the answer it gave before reading its body");
        ok wait_for(sub { substr(log_text(), $mark) =~ /CGIPLUS2906: FastCGI worker pid $ep of \S+raw\.py ended request \d+ \(\/$p\/raw\.py\?early\) before it took all of its body; it is replaced/ }),
           1, "/$p/raw.py?early: logged (2906)";
        ($code, undef, $body) = curl('--data-binary', 'small', url("/$p/raw.py"));
        my $np = kv($body)->{pid} // 0;
        ok t_cmp("$code $np", qr/^200 (?!$ep$)\d+$/, "/$p/raw.py: the next request, from another worker");
        my $line = '';
        wait_for(sub { ($line) = grep { /^$np \d+ / } ledger_lines(); $line });
        ok t_cmp($line // '', "$np 1 BEGIN PARAMS PARAMS STDIN STDIN", 'which read its own request only');
        unlink $big;
    }
}

# The direct path: after its first request a worker is claimed by the httpd
# child itself; the runner relays none of the rest (it logs 2021 for each
# request it hands to a worker, at debug). The direct ones go on one
# kept-alive connection: a child that has not served /fcgi/app yet relays
# its first request of it (2021), and which child takes a new connection is
# the MPM's (one it started late, or one no earlier connection went to).
# So first, requests on that connection until one is not relayed: its
# child knows the pool and the worker is published.
{
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $vars->{port},
                                  Proto => 'tcp', Timeout => 5) or die "connect: $!";
    kept_direct($s, '/fcgi/app?count=w%d', $logf);
    my $mark = length log_text();
    kept_get($s, "/fcgi/app?count=$_") for 1 .. 20;
    close $s;
    curl(url("/fcgir/app?count=$_")) for 1 .. 20;
    sleep 0.3;
    my $tail = substr(log_text(), $mark);
    my $relayed = () = $tail =~ m{CGIPLUS2021: request \d+ \(/fcgir/app\?count=\d+\)}g;
    my $direct = () = $tail =~ m{CGIPLUS2021: request \d+ \(/fcgi/app\?count=\d+\)}g;
    ok t_cmp($relayed, 20, 'CGIplusDirect off: the runner hands each of 20 requests to the worker');
    ok t_cmp($direct, 0, 'the direct path: the runner hands none of 20 requests to a worker');
}

# A timeout: 504, the worker stopped, the next request served.
{
    my $t0 = time;
    my ($code) = curl(url('/fcgit/app?sleep=4000'));
    ok t_cmp($code, 504, 'a FastCGI request past CGIplusTimeoutNoProgress: 504');
    ok t_cmp(time - $t0 < 3.5 ? 1 : 0, 1, 'answered at the timeout, not when the application finished');
    ($code) = curl(url('/fcgit/app'));
    ok t_cmp($code, 200, 'the next request is served');
}
# A timeout tells the application: ABORT_REQUEST before the worker is
# stopped, on both paths (raw.py?quiet writes nothing and waits for it).
for my $p (qw(fcgit fcgitr)) {
    my $seen = () = ledger_lines();
    my $mark = length log_text();
    my ($code) = curl(url("/$p/raw.py?quiet"));
    ok t_cmp($code, 504, "/$p/raw.py?quiet: past CGIplusTimeoutNoProgress: 504");
    ok wait_for(sub { my @l = ledger_lines(); grep { /^\d+ \d+ .*\bBEGIN\b.*\bABORT$/ } @l[$seen .. $#l] }, 5),
       1, "/$p/raw.py?quiet: the application received ABORT_REQUEST";
    # The worker is stopped (2062 says so): no line says it serves again.
    ok wait_for(sub { substr(log_text(), $mark) =~ /CGIPLUS2028: worker pid \d+ of \S+raw\.py ended: timeout/ }, 30),
       1, "/$p/raw.py?quiet: the worker ended (timeout)";
    ok t_cmp(join(' ', substr(log_text(), $mark) =~ /(CGIPLUS2506)[^\n]*raw\.py\?quiet/g), '',
             "/$p/raw.py?quiet: no 'lost its client ... then serves again' for the stopped worker");
}

# More requests at once than workers (16 on a pool of 2): they wait, and
# each waiter is handed a FastCGI worker as one frees up (on the direct
# path from the shared table's queue, without the runner); every one gets
# its own answer, from one of the two processes.
for my $p (qw(fcgi fcgir)) {
    my @fh = map {
        open(my $fh, '-|', 'curl', '-s', '--max-time', '30', '-w', '\ncode=%{http_code}\n',
             url("/$p/app/tok$_?sleep=60")) or die "curl: $!";
        $fh
    } 1 .. 16;
    my (@ok, %pids);
    for my $i (1 .. 16) {
        my $out = do { local $/; readline $fh[$i - 1] } // '';
        close $fh[$i - 1];
        my $e = kv($out);
        push @ok, $i if ($e->{code} // '') eq '200' && ($e->{PATH_INFO} // '') eq "/tok$i";
        $pids{ $e->{pid} // 'none' }++;
    }
    ok t_cmp(scalar(@ok), 16, "/$p/app: 16 at once on 2 workers, each its own answer");
    ok t_cmp(scalar(keys %pids) <= 2 ? 1 : 0, 1, "/$p/app: served by at most 2 processes (" . join(' ', sort keys %pids) . ')');
}

# A full pool: 503 with Retry-After at once (one worker, no queue).
{
    my $slow = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$vars->{port}", Timeout => 10) or die $!;
    print $slow "GET /fcgiq/app?sleep=4000 HTTP/1.0\r\n\r\n";
    # until the status page shows it on the pool's only worker
    wait_for(sub { my $st = eval { JSON::PP::decode_json((curl(url('/cgiplus-status?json')))[2]) } // {};
                   grep { $_->{state} eq 'busy' && ($_->{uri} // '') =~ m{^/fcgiq/app\?sleep=4000} }
                   map { @{ $_->{workers} // [] } } @{ $st->{pools} // [] } }, 10);
    my ($code, $h) = curl(url('/fcgiq/app'));
    ok t_cmp("$code " . ($h->{'retry-after'} // 'none'), qr/^503 \d+$/, 'a FastCGI pool at its maximum with no queue: 503 with Retry-After');
    local $/;
    my $answer = <$slow>;
    ok t_cmp($answer, qr/^HTTP\/1\.1 200/, 'the request that had the worker is answered');
}

# A program that dies at start: 502 for the request it had, then the
# crash-loop backoff answers 503 with Retry-After at once. The backoff
# starts at 1 s and doubles with each worker that dies: a request that
# comes after it (a slow machine) meets a new worker that dies (502), and
# the next backoff is longer.
{
    my (@codes, $h);
    for (1 .. 6) {
        my ($c, $hc) = curl(url('/fcgi/dies.sh'));
        push @codes, $c;
        ($h = $hc), last if $c eq '503' && @codes > 1;
    }
    ok t_cmp("@codes[0, 1]", qr/^502 (502|503)$/, 'a FastCGI program that dies at start: its requests fail');
    ok t_cmp("@codes " . ($h->{'retry-after'} // 'none'), qr/^502 (502 )*503 \d+$/,
             'then the crash-loop backoff: 503 with Retry-After');
    ok wait_for(sub { log_text() =~ /CGIPLUS2066: \S+dies\.sh: \d+ workers in a row ended before serving/ }), 1,
       'the backoff is logged (2066)';
}

# A rolling deploy: the program replaced (renamed into place) while
# requests run; new requests meet the new program, none fails.
{
    my $d = "$vars->{t_logs}/fcgi-deploy";
    mkdir $d;
    chmod 0755, $d;
    system('cp', 't/src/fcgi_app', "$d/app.new") == 0 or die;
    rename "$d/app.new", "$d/app" or die;
    my (undef, undef, $body) = curl(url('/fcgideploy/app'));
    my $old = kv($body)->{pid} // 0;
    my $pid = fork // die;
    if (!$pid) {
        my $bad = 0;
        for (1 .. 60) { my ($c) = curl(url('/fcgideploy/app')); $bad++ if $c != 200 }
        exit($bad > 255 ? 255 : $bad);
    }
    sleep 0.5;
    system('cp', 't/src/fcgi_app', "$d/app.new") == 0 or die;
    rename "$d/app.new", "$d/app" or die;
    waitpid $pid, 0;
    my $bad = $? >> 8;
    my $new = 0;
    for (1 .. 10) { (undef, undef, $body) = curl(url('/fcgideploy/app')); $new = kv($body)->{pid} // 0; last if $new != $old; sleep 0.2 }
    ok t_cmp($bad, 0, 'no request failed while the FastCGI program was replaced under load');
    ok t_cmp($new != $old && $new ? 1 : 0, 1, "the new program serves (pid $old, then $new)");
    ok wait_for(sub { log_text() =~ /CGIPLUS2065: \Q$d\E\/app changed/ }), 1, 'the pool rolled over (2065)';
}

# No script can reach a FastCGI application's socket: it is bound in the
# runner's spool directory (mode 0700, the runner's user: root here), and
# the application has only its listening socket and its output pipe.
{
    my $spool = "$vars->{t_logs}/cgiplus-spool";
    my @socks = glob("$spool/fcgi-*.sock");
    my @st = stat $spool;
    ok t_cmp(scalar(@socks) > 0 ? 1 : 0, 1, 'the FastCGI sockets are in the spool directory (' . scalar(@socks) . ')');
    ok t_cmp(sprintf('%o %d', $st[2] & 07777, $st[4]), sprintf('700 %d', $>), 'which is mode 0700 and the runner\'s');
    my $pid = fork // die;
    if (!$pid) {
        my ($uid, $gid) = (getpwnam('nobody'))[2, 3];
        $) = "$gid $gid";
        $( = $gid;
        $< = $> = $uid;
        require IO::Socket::UNIX;
        my $s = IO::Socket::UNIX->new(Peer => $socks[0]);
        exit($s ? 0 : $!{EACCES} ? 13 : 1);
    }
    waitpid $pid, 0;
    ok t_cmp($? >> 8, 13, "a process of the scripts' user cannot connect to one (EACCES)");
    my (undef, undef, $body) = curl(url('/fcgi/app'));
    my $wpid = kv($body)->{pid};
    my @fds = sort map { m{/(\d+)$} ? $1 : () } glob("/proc/$wpid/fd/*");
    my $fd0 = readlink("/proc/$wpid/fd/0") // '';
    ok t_cmp(join(',', @fds), '0,1,2,3', 'the application has descriptors 0 to 2 and its accepted connection, nothing else');
    ok t_cmp($fd0, qr/^socket:/, 'descriptor 0 is its listening socket');
}

# The status page and the metrics show FastCGI pools like any other.
{
    my $st = eval { JSON::PP::decode_json((curl(url('/cgiplus-status?json')))[2]) } // {};
    my ($pool) = grep { ($_->{script} // '') =~ m{t/src/fcgi_app$} } @{ $st->{pools} // [] };
    ok t_cmp($pool ? $pool->{mode} : 'none', 'fastcgi', 'the status page lists the FastCGI pool, mode fastcgi');
    my $requests = 0;
    $requests += $_->{counters}{requests} for grep { ($_->{script} // '') =~ m{t/src/fcgi_app$} } @{ $st->{pools} // [] };
    ok t_cmp($requests >= 40 ? 1 : 0, 1, "its counters include direct requests ($requests)");
    my (undef, undef, $metrics) = curl(url('/cgiplus-status?metrics'));
    ok t_cmp($metrics, qr/cgiplus_pool_requests_total\{script="[^"]*fcgi_app",mode="fastcgi"\} \d+/,
             'the metrics carry mode="fastcgi"');
}

# The runner killed (SIGKILL): its FastCGI workers die with it (nothing
# else would end them: they wait for a connection nobody can make), and the
# runner httpd starts again serves with new ones.
{
    my @wpids;
    for (1 .. 4) { my (undef, undef, $b) = curl(url('/fcgi/app')); push @wpids, kv($b)->{pid} }
    my %seen;
    @wpids = grep { $_ && !$seen{$_}++ } @wpids;
    open my $pf, '<', "$vars->{t_logs}/httpd.pid" or die;
    chomp(my $parent = <$pf>);
    my ($runner) = grep { `cat /proc/$_/comm 2>/dev/null` =~ /cgiplus/ }
                   map { (split ' ')[0] } `ps --ppid $parent -o pid=`;
    kill 'KILL', $runner if $runner;
    my $gone = wait_for(sub { !grep { kill 0, $_ } @wpids }, 5);
    ok t_cmp($gone, 1, "the runner (pid @{[$runner // '?']}) killed: its FastCGI workers (@wpids) are gone too");
    my $served = wait_for(sub { my ($c, undef, $b) = curl(url('/fcgi/app')); $c == 200 && !$seen{kv($b)->{pid} // 0} }, 10);
    ok t_cmp($served, 1, 'a new runner serves the pool with new workers');
}
