# CGIplusFastCGIConnection per-request: each request gets a new connection
# to the FastCGI worker's listening socket and no FCGI_KEEP_CONN, as
# mod_fcgid connects, on the direct path (/fcgicn/) and relayed
# (/fcgicnr/). Two programs a kept connection fails (docs/APPS.md, "One
# connection per request"): a threaded libfcgi program written as libfcgi's
# examples/threaded.c (t/src/fcgi_threaded: threads take turns at
# FCGX_Accept_r under one mutex) and a Perl FCGI loop that exits by itself
# after 2 requests (t/htdocs/fcgi/exit2.pl) while requests queue: 40
# requests, 10 at once, all 200, each run once (a ledger line per run). A
# request whose worker exited (its socket refuses the connection) goes to
# another worker: never failed, never run twice; the exit window made
# long (a pool of 1, exit2.pl's then=) forces each way it can meet one
# (3600, 3601, 3602, 1131), with bodies past 68 KiB. With the connection kept
# (/fcgick/), the threaded program's next request on it waits for its
# timeout (504), as documented.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use Time::HiRes qw(sleep time);
use lib 't/htdocs/apps';
use AppTest qw(curl url);

plan tests => 32,
    need { 'needs FCGI (libfcgi-perl)' => !system('perl -MFCGI -e1 2>/dev/null'),
           'needs t/src/fcgi_threaded (make builds it where libfcgi-dev is installed)' =>
               -x 't/src/fcgi_threaded' };

my $vars = Apache::Test::config()->{vars};
my $logf = "$vars->{t_logs}/error_log";
my $ledger = "$vars->{t_logs}/fcgi-conn-ledger";
unlink $ledger;
open my $lf, '>', $ledger or die "$ledger: $!";
close $lf;
chmod 0666, $ledger;
sub log_from { open my $fh, '<', $logf or return ''; seek $fh, $_[0], 0; local $/; <$fh> // '' }

# $n requests to $path?id=BASE+i, $conc at once (POST: each with a body
# of its own): { id => [code, answer's id, pid, answer's body length and
# sum] }.
sub body_of { 'b' . ($_[0] % 7) x (3000 + $_[0] % 500) }
sub burst {
    my ($path, $base, $n, $conc, $post) = @_;
    pipe my $rd, my $wr or die "pipe: $!";
    my @kids;
    for my $k (0 .. $conc - 1) {
        my $pid = fork // die "fork: $!";
        if (!$pid) {
            close $rd;
            my $out = '';
            for (my $i = $k; $i < $n; $i += $conc) {
                my $id = $base + $i;
                my ($c, undef, $b) = curl($post ? ('--data-binary', body_of($id)) : (),
                                          url("$path?id=$id"));
                my ($bid) = $b =~ /^id=(-?\d+)$/m;
                my ($bpid) = $b =~ /^pid=(\d+)$/m;
                my ($blen) = $b =~ /^body=(\d+ \d+)$/m;
                $blen =~ s/ /:/ if defined $blen;
                $out .= join(' ', $id, $c, $bid // '-', $bpid // '-', $blen // '-') . "\n";
            }
            print $wr $out;
            exit 0;
        }
        push @kids, $pid;
    }
    close $wr;
    my %got = map { my @f = split ' '; ($f[0] => [@f[1 .. 4]]) } <$rd>;
    waitpid $_, 0 for @kids;
    return \%got;
}

# How many times each id of this burst ran (ledger lines "TAG PID ID").
sub runs {
    my ($tag, $base, $n) = @_;
    open my $fh, '<', $ledger or return {};
    my %runs;
    while (<$fh>) {
        my ($t, undef, $id) = split ' ';
        $runs{$id}++ if $t eq $tag && $id >= $base && $id < $base + $n;
    }
    return \%runs;
}

my $base = 0;
for my $case ([fcgicn => 'direct path'], [fcgicnr => 'relayed']) {
    my ($p, $how) = @$case;
    for my $prog ([threaded => 'threaded', 'a threaded libfcgi program'],
                  ['exit2.pl' => 'exit2', 'a Perl FCGI loop exiting after 2 requests']) {
        my ($file, $tag, $what) = @$prog;
        $base += 1000;
        my $t0 = time;
        my $off = -s $logf;
        my $got = burst("/$p/$file", $base, 40, 10);
        my $took = time - $t0;
        my @bad = grep { $got->{$_}[0] ne '200' || $got->{$_}[1] ne $_ } sort keys %$got;
        my %codes;
        $codes{$got->{$_}[0]}++ for keys %$got;
        ok t_cmp(scalar(keys %$got) . ' ' . scalar(@bad), '40 0',
                 "/$p/$file ($how, per request): $what serves 40 requests, 10 at once, "
                 . 'each 200 with its own answer (' . join(', ', map { "$_: $codes{$_}" } sort keys %codes) . ')');
        my $runs = runs($tag, $base, 40);
        my @twice = grep { $runs->{$_} != 1 } keys %$runs;
        ok t_cmp(scalar(keys %$runs) . ' ' . scalar(@twice), '40 0',
                 "/$p/$file ($how): each request ran once");
        if ($tag eq 'exit2') {
            my %pids = map { $_->[2] => 1 } values %$got;
            ok t_cmp(scalar(keys %pids) >= 15 ? 1 : 0, 1,
                     "/$p/$file ($how): the program exited by itself every 2 requests ("
                     . scalar(keys %pids) . ' processes served)');
        }
        else {
            # a request waiting on a kept connection would wait for the
            # no-progress timeout (3 s), logged (1706 direct, 2062 relayed, 1063);
            # the log, not the time taken, says so on a busy machine too
            ok t_cmp(log_from($off) =~ /CGIPLUS(1706|2062|1063):/ ? $1 : 'none', 'none',
                     sprintf("/$p/$file ($how): none waited for a timeout (%.1f s)", $took));
        }
    }
}

# With bodies (POST), relayed and direct: a request sent again after its
# worker exited with it unaccepted goes with its whole body.
for my $p (qw(fcgicnr fcgicn)) {
    $base += 1000;
    my $got = burst("/$p/exit2.pl", $base, 40, 10, 1);
    my @bad = grep {
        my $want = body_of($_);
        $got->{$_}[0] ne '200' || $got->{$_}[1] ne $_ ||
            $got->{$_}[3] ne length($want) . ':' . unpack('%32C*', $want)
    } sort keys %$got;
    my $runs = runs('exit2', $base, 40);
    ok t_cmp(scalar(keys %$got) . ' ' . scalar(@bad) . ' ' . scalar(grep { $runs->{$_} != 1 } keys %$runs)
             . ' ' . scalar(keys %$runs), '40 0 0 40',
             "/$p/exit2.pl with bodies: 40 requests, 10 at once, each 200 with its whole body, each ran once"
             . (@bad ? " (bad: @bad[0 .. ($#bad < 4 ? $#bad : 4)])" : ''));
}

# The exit window made long (exit2.pl's then=, a pool of 1 worker): a
# request made after the program's last one went to the same worker as it
# lingered before its exit. "shut": its socket refuses the connection
# (relayed 3600, direct 3601); "linger": the connection waits unaccepted,
# found so when the worker is reaped (relayed 3602, direct the slot tells
# the child, 1131), relayed with bodies past what was once kept of a
# request (68 KiB) and past the socket's buffer. Each: 200 from another process,
# its whole body, run once.
$base += 1000;
# (A body over 64 KiB goes through the runner: the direct path's is 60 KiB.)
for my $case (['fcgicwr', 'relayed', 3600, 3602, 100 * 1024, 1024 * 1024],
              ['fcgicw', 'direct path', 3601, 1131, 60 * 1024]) {
    my ($p, $how, $refused, $unacc, @sizes) = @$case;
    for my $then (['shut', $refused, 2000], map { ['linger', $unacc, $_] } @sizes) {
        my ($mode, $logno, $blen) = @$then;
        $base += 10;
        my $off = -s $logf;
        my $f = "$vars->{t_logs}/exitwin";
        my $want = join '', map { chr(48 + ($_ * 7 + $base) % 75) } 1 .. $blen;
        open my $bf, '>', "$f-body" or die "$f-body: $!";
        print $bf $want;
        close $bf;
        unlink "$f-1", "$f-2";
        # one connection, so one httpd child, which learnt the pool from
        # the first (a pool's first request is the runner's)
        open my $cf, '-|', 'curl', '-s', '-S', '--max-time', '20', '-o', "$f-1", '-w', '%{http_code} ',
            url("/$p/exit2.pl?id=$base&then=$mode"), '--next', '--max-time', '20', '-o', "$f-2",
            '-w', '%{http_code}', '--data-binary', "\@$f-body", url("/$p/exit2.pl?id=" . ($base + 1))
            or die "curl: $!";
        my ($c1, $c2) = split ' ', do { local $/; <$cf> } // '';
        close $cf;
        my ($b1, $b2) = map { open my $fh, '<', $_ or return ''; local $/; <$fh> // '' } "$f-1", "$f-2";
        my ($p1) = $b1 =~ /^pid=(\d+)$/m;
        my ($p2) = $b2 =~ /^pid=(\d+)$/m;
        my ($got) = $b2 =~ /^body=(\d+ \d+)$/m;
        my $runs = runs('exit2', $base, 2);
        ok t_cmp(join(' ', $c1, $c2, ($p1 // 0) != ($p2 // 0) ? 'other' : 'same',
                      $got // '-', $runs->{$base} // 0, $runs->{$base + 1} // 0),
                 join(' ', 200, 200, 'other', length($want) . ' ' . unpack('%32C*', $want), 1, 1),
                 "/$p/exit2.pl ($how): the request after its last, as it lingered ($mode), "
                 . "$blen bytes of body: 200 from another worker, its body whole, each ran once");
        sleep 0.3;
        my $log = log_from($off);
        ok t_cmp(scalar(() = $log =~ /CGIPLUS$logno:/g) >= 1 ? 1 : 0, 1,
                 "/$p/exit2.pl ($how, $mode): logged $logno");
    }
}

# A body past what is kept of a request (twice the socket's buffer) to a
# worker that reads it: 200, whole.
{
    my $f = "$vars->{t_logs}/exitwin-body";
    my $want = join '', map { chr(48 + ($_ * 11) % 75) } 1 .. 4 * 1024 * 1024;
    open my $bf, '>', $f or die "$f: $!";
    print $bf $want;
    close $bf;
    my ($c, undef, $b) = curl('--data-binary', "\@$f", url('/fcgicwr/exit2.pl?id=' . ($base + 10)));
    my ($got) = $b =~ /^body=(\d+ \d+)$/m;
    ok t_cmp("$c " . ($got // '-'), '200 ' . length($want) . ' ' . unpack('%32C*', $want),
             '/fcgicwr/exit2.pl: a 4 MiB body, read: 200, whole');
}

# A client that leaves mid-request: ABORT_REQUEST, the connection cut (as
# mod_fcgid closes it), the worker idle at once and serving on, not stopped.
for my $p (qw(fcgicn fcgicnr)) {
    my $off = -s $logf;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$vars->{port}", Timeout => 10)
        or die "connect: $!";
    print $s "GET /$p/threaded?sleep=1500&id=-7 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    sleep 0.4;
    close $s;
    sleep 0.3;
    my @codes = map { (curl(url("/$p/threaded?id=-8")))[0] } 1 .. 4;
    ok t_cmp("@codes", '200 200 200 200', "/$p/threaded: after a client left mid-request, it serves on");
    sleep 1.5; # the orphan's end
    my $log = log_from($off);
    ok t_cmp(join(' ', $log =~ m{(CGIPLUS2028: worker pid \d+ of \S+/fcgi_threaded ended: \w+)}g), '',
             "/$p/threaded: the worker was not stopped for it");
}

# A request on the direct path claims the worker and connects itself: no
# FCGI_CHANNEL per request (its socket's name is asked once per worker).
{
    my ($c, undef, $b) = curl(url('/fcgicn/threaded?id=-5'));
    ok t_cmp($c, 200, '/fcgicn/threaded: one more, after the bursts');
}

# Kept (/fcgick/): the threaded program's thread that finished a request
# on the kept connection waits for the mutex another holds in accept():
# the next request on it waits for the no-progress timeout (504), as
# docs/APPS.md says.
# (It may win the mutex back first: up to 8 tries.)
my @codes;
for (1 .. 8) {
    my ($c) = curl(url('/fcgick/threaded'));
    push @codes, $c;
    last if $c eq '504';
}
ok t_cmp(scalar(grep { $_ eq '504' } @codes) >= 1 ? 1 : 0, 1,
         "/fcgick/threaded (connection kept): a request after the first waits for its timeout, 504 (@codes)");
ok t_cmp($codes[0], 200, '/fcgick/threaded: its first request is answered');
