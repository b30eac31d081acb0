# Every failed response is counted by its cause on the status page and in
# the metrics, wherever it was decided (issue 25, point 2): by the runner
# (crashed, timeout, overloaded, not found, spawn failure) or by httpd (a
# bad header or no header at all, a body over LimitRequestBody, a body that
# cannot be read, a client gone), on the direct path (causes/d/) and
# relayed (causes/r/, CGIplusDirect off), the same sequence on both. And
# workers that die in the middle of requests, one after another, start the
# crash-loop backoff on both paths, also when they had served requests
# before.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use File::Path qw(make_path);
use IO::Socket::INET;
use Socket qw(SOL_SOCKET SO_LINGER);
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget hstart hfinish hfinish_all status wait_for);

my @paths = qw(d r);
my @causes = qw(overloaded timeout crashed spawn_failed not_found too_large bad_request aborted refused
                bad_header bad_body);
plan tests => 2 * (18 + 3 * 1 + 2 * 4);

my $vars = Apache::Test::config()->{vars};
my $lib = "$vars->{top_dir}/lib/perl";
my $fail = <<"PERL";
#!/usr/bin/perl
# t/58: does what its query string says (exit, badhdr, nohdr, sleep[=S],
# ticks=N&gap=S, hold=FILE: a tick every 0.1 s until FILE exists, 30 s at
# most), else answers.
use strict;
use warnings;
use lib '$lib';
use CGIplus;
use Time::HiRes qw(sleep);
\$| = 1;
while (CGIplus::accept()) {
    my %q = map { my (\$k, \$v) = split /=/, \$_, 2; (\$k, \$v // '') } split /&/, \$ENV{QUERY_STRING} // '';
    exit 3 if exists \$q{exit};
    if (exists \$q{badhdr}) { print "Not a header\\n\\n"; CGIplus::finish(); next }
    if (exists \$q{nohdr}) { CGIplus::finish(); next }
    sleep(length \$q{sleep} ? \$q{sleep} : 0.4) if exists \$q{sleep};
    print "Content-Type: text/plain\\n\\nok pid=\$\$\\n";
    for (1 .. (\$q{ticks} // 0)) { print "tick\\n"; sleep \$q{gap} }
    if (\$q{hold}) { for (1 .. 300) { last if -e \$q{hold}; print "tick\\n"; sleep 0.1 } }
    CGIplus::finish();
}
PERL
my $pylib = "$vars->{top_dir}/lib/python";
my $exitpy = <<"PY";
#!/usr/bin/python3
# t/58: exits in the middle of a request when asked (sys.exit), else answers.
import os, sys, time
sys.path.insert(0, '$pylib')
import cgiplus
while cgiplus.accept():
    q = os.environ.get('QUERY_STRING', '').split('&')
    if 'exit' in q:
        sys.exit(3)
    if 'sleep' in q:
        time.sleep(0.4)
    sys.stdout.write('Content-Type: text/plain\\n\\nok\\n')
    cgiplus.finish()
PY
my %files = ('fail.pl' => [$fail, 0755], 'exit.pl' => [$fail, 0755], 'exit.py' => [$exitpy, 0755],
             'crash.pl' => ["#!/usr/bin/perl\nexit 1;\n", 0755],
             'noexec.pl' => ["#!/usr/bin/perl\nprint \"Content-Type: text/plain\\n\\nno\\n\";\n", 0644]);
for my $p (@paths) {
    my $dir = "$vars->{t_logs}/causes/$p";
    make_path($dir);
    chmod 0755, "$vars->{t_logs}/causes", $dir;
    for my $f (keys %files) {
        open my $fh, '>', "$dir/$f" or die "$dir/$f: $!";
        print $fh $files{$f}[0];
        close $fh;
        chmod $files{$f}[1], "$dir/$f";
    }
}

sub pool_by_script {
    my ($st, $script) = @_;
    my ($p) = grep { $_->{script} eq $script && !$_->{retired} } @{ $st->{pools} };
    return $p;
}
sub errors {
    my ($p) = @_;
    return join ' ', map { "$_=" . ($p ? $p->{counters}{errors}{$_} // 'missing' : 'no-pool') } @causes;
}
sub want { my (%e) = @_; return join ' ', map { "$_=" . ($e{$_} // 0) } @causes }
# A raw request; a client that resets (SO_LINGER 0) after $reset_after s.
sub raw {
    my ($req, $reset_after) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $vars->{port}, Timeout => 10)
        or die "connect: $!";
    print $s $req;
    if (defined $reset_after) {
        sleep $reset_after;
        setsockopt($s, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0));
        close $s;
        return '';
    }
    local $/;
    my $out = <$s> // '';
    close $s;
    return $out;
}

for my $p (@paths) {
    my $u = "/causes/$p";
    my $script = "$vars->{t_logs}/causes/$p/fail.pl";
    my $name = $p eq 'd' ? 'direct path' : 'relayed';
    ok t_cmp(hget("$u/fail.pl")->{code}, 200, "$name: a good request first (the worker is warm)");
    ok t_cmp(hget("$u/fail.pl?badhdr")->{code}, 502, "$name: a bad header: 502");
    ok t_cmp(hget("$u/fail.pl?nohdr")->{code}, 502, "$name: no header at all (only the end marker): 502");
    ok t_cmp(hget("$u/fail.pl?sleep=3")->{code}, 504, "$name: silent past CGIplusTimeoutNoProgress: 504");
    ok t_cmp(hget("$u/fail.pl", method => 'POST', body => 'x' x 1000)->{code}, 413,
             "$name: a body over LimitRequestBody: 413");
    my $bad = raw("POST $u/fail.pl HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                  . "Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n");
    ok t_cmp($bad, qr{^HTTP/1\.1 400 }, "$name: a malformed chunked body: 400");
    ok t_cmp(hget("$u/fail.pl?exit")->{code}, 502, "$name: the script exits in the request: 502");
    # Two run, one waits (queue depth 1), the fourth is turned away at once.
    my $release = "$vars->{t_logs}/causes/release-$p";
    unlink $release;
    my @h = map { hstart("$u/fail.pl?hold=$release&n=$_") } 1 .. 2;
    my $busy = wait_for(sub { my $q = pool_by_script(status(), $script);
                              $q && (grep { $_->{state} eq 'busy' } @{ $q->{workers} }) == 2 }, 5, 0.05);
    push @h, hstart("$u/fail.pl?ticks=1&gap=0.1&n=3");
    my $queued = wait_for(sub { my $q = pool_by_script(status(), $script); $q && $q->{queue}{depth} == 1 }, 5, 0.05);
    my $over = hget("$u/fail.pl?n=4");
    ok t_cmp(($busy ? 1 : 0) . ($queued ? 1 : 0) . " $over->{code} " . ($over->{headers}{'retry-after'} // '-'),
             qr/^11 503 \d+$/, "$name: two busy, one queued, the next 503 with Retry-After");
    open my $rel, '>', $release or die "$release: $!";
    close $rel;
    ok t_cmp(join(' ', map { $_->{code} } hfinish_all(@h)), '200 200 200', "$name: the three others: 200");
    # A client that resets in the middle of a response.
    raw("GET $u/fail.pl?ticks=10&gap=0.2 HTTP/1.1\r\nHost: x\r\n\r\n", 0.5);
    my $p1 = wait_for(sub { my $q = pool_by_script(status(), $script);
                            $q && $q->{counters}{errors}{aborted} ? $q : undef }, 6, 0.1);
    ok t_cmp($p1 ? $p1->{counters}{errors}{aborted} : 0, 1, "$name: a client reset mid-response: aborted");
    # The same script of each path is its own series in the metrics.
    my $st = status();
    my $fp = pool_by_script($st, $script);
    ok t_cmp(errors($fp), want(bad_header => 2, timeout => 1, too_large => 1, bad_body => 1, crashed => 1,
                               overloaded => 1, aborted => 1),
             "$name: fail.pl's errors by cause (JSON)");
    ok t_cmp($fp->{counters}{requests}, 12, "$name: and all 12 requests are counted, the refused ones too");
    # Each once: the 4 answered well are the served ones; a bad header is
    # not served too, nor is the reset one once its worker has run it to
    # its end (drained on the direct path, an orphan relayed).
    wait_for(sub { my $q = pool_by_script(status(), $script);
                   $q && !grep { $_->{state} ne 'idle' } @{ $q->{workers} } }, 10, 0.1);
    my $done = pool_by_script(status(), $script);
    my $failed = 0;
    $failed += $done->{counters}{errors}{$_} // 0 for @causes;
    ok t_cmp("$done->{counters}{requests} $done->{counters}{served} $failed", '12 4 8',
             "$name: 12 requests: 4 served, 8 failed, each counted once");
    ok t_cmp("$fp->{counters}{max_active} $fp->{counters}{max_reached} $fp->{queue}{max}", '2 1 1',
             "$name: max active 2, the limit reached once, one request queued at most");
    my $m = hget('/cgiplus-status?metrics')->{body};
    my %metric;
    $metric{$1} = $2 while $m =~ /^cgiplus_pool_errors_total\{script="\Q$script\E",mode="cgiplus",cause="(\w+)"\} (\d+)$/mg;
    ok t_cmp(join(' ', map { "$_=" . ($metric{$_} // 'missing') } @causes), errors($fp),
             "$name: the metrics say the same, cause by cause");
    my $html = hget("/cgiplus-status?pool=$fp->{id}")->{body};
    ok t_cmp($html, qr{<th>bad_header</th><td>2</td>}, "$name: and the HTML page of the pool");

    # The runner's own: not executable (403), dies at start (502, 502, then
    # the backoff's 503).
    ok t_cmp(hget("$u/noexec.pl")->{code}, 403, "$name: a script that is not executable: 403");
    my @c = map { hget("$u/crash.pl?$_")->{code} } 1 .. 3;
    ok t_cmp("@c", '502 502 503', "$name: a script that dies at start: 502, 502, then 503");
    $st = status();
    ok t_cmp(errors(pool_by_script($st, "$vars->{t_logs}/causes/$p/noexec.pl")), want(not_found => 1),
             "$name: noexec.pl: not_found");
    ok t_cmp(errors(pool_by_script($st, "$vars->{t_logs}/causes/$p/crash.pl")), want(crashed => 2, spawn_failed => 1),
             "$name: crash.pl: crashed 2, spawn_failed 1");
    $m = hget('/cgiplus-status?metrics')->{body};
    ok t_cmp($m, qr/^cgiplus_pool_errors_total\{script="\Q$vars->{t_logs}\E\/causes\/$p\/crash\.pl",mode="cgiplus",cause="spawn_failed"\} 1$/m,
             "$name: and in the metrics");

    # Workers that had served die in the middle of a request, one after the
    # other, with nothing served in between: each fails its own request
    # only, no crash-loop backoff (one client asking a URL that crashes the
    # script cannot have every other request answered 503; t/43_crash_request).
    # In Perl and in Python.
    for my $s (qw(exit.pl exit.py)) {
        my $exit = "$vars->{t_logs}/causes/$p/$s";
        my @w = hfinish_all(map { hstart("$u/$s?sleep&n=$_") } 1 .. 2);
        ok t_cmp(join(' ', map { $_->{code} } @w), '200 200', "$name, $s: two workers serve a request each");
        my @e = map { hget("$u/$s?exit&n=$_")->{code} } 1 .. 2;
        ok t_cmp("@e", '502 502', "$name, $s: then each dies in a request: 502, 502");
        my $ep = wait_for(sub { my $q = pool_by_script(status(), $exit);
                                $q && ($q->{counters}{deaths}{exited} // 0) >= 2 ? $q : undef }, 30, 0.1);
        ok t_cmp($ep ? "$ep->{backoff}{failures} $ep->{backoff}{remaining_ms}" : '', '0 0',
                 "$name, $s: both ended, and the backoff does not count them");
        open my $lf, '<', "$vars->{t_logs}/error_log" or die;
        my $log = do { local $/; <$lf> };
        ok t_cmp($log =~ /CGIPLUS2066: \Q$exit\E:/ || hget("$u/$s?n=3")->{code} != 200 ? 0 : 1, 1,
                 "$name, $s: no backoff starts (2066), the next request is served");
    }
}
