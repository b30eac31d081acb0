# A worker's output reaches only the request it was written for (issue 20,
# hole 1). bench/scripts/soak_late.py (bench/soak's misbehaving script)
# echoes each request's token (X-Soak-Id); asked to, it
# writes a second response, "PRIVATE DATA OF <token>", 150 ms after its
# sentinel (from its main thread, or from a background thread while the
# main thread waits for its next request). Before the fix that output was
# the next request's response (and on the direct path every later one was
# shifted by one). Now whoever gives the worker a request (an httpd child,
# or the runner on the relay) finds it broken before the request is whole
# on its CGIPLUSIN: the worker is stopped (logged with the script and its
# pid) and the request goes to another worker, once. A worker that writes
# while nobody uses it is found by the runner. On the direct path and
# relayed (CGIplusDirect off), one by one and at c10 on a pool of two. A
# request that meets five unfit workers in a row is answered 502 (1132).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);
use LWP::UserAgent;
use Time::HiRes qw(sleep time);
use lib 't/lib', 't/htdocs/pool/lib';
use MainLog qw(log_offset log_since);
use PoolTest qw(status);

plan tests => 31;

my $vars = Apache::Test::config()->{vars};
my $port = $vars->{port};
my $script = "$vars->{top_dir}/bench/scripts/soak_late.py";

# A request named $tok (X-Soak-Id), asking for late output or not.
sub req {
    my ($ua, $url, $tok, $late) = @_;
    return $ua->get($url . ($late ? "?late=$late" : ''), 'X-Soak-Id' => $tok);
}

# A response is right when it is exactly its own request's answer.
sub wrong {
    my ($res, $tok) = @_;
    my $body = $res->content // '';
    return '' if $res->code == 200 && $body =~ /\Atoken \Q$tok\E pid \d+\n\z/ &&
                 ($res->header('X-Soak-Token') // '') eq $tok;
    (my $b = $body) =~ s/\n/\\n/g;
    return sprintf "%s: %d %.120s", $tok, $res->code, $b;
}

# The pid a right response names.
sub pid_of { ($_[0]->content // '') =~ /pid (\d+)/ ? $1 : 0 }

# Lines saying a worker of late.py was stopped as broken.
sub broken_lines {
    my ($text) = @_;
    return grep { /CGIPLUS(?:1130|1705|2025):/ && /\Q$script\E/ } split /\n/, $text;
}

# Runs $code->(I) in N processes at once, I from 1; what each returned, in order.
sub in_children {
    my ($n, $code) = @_;
    my @kids;
    for my $i (1 .. $n) {
        pipe my $rd, my $wr or die "pipe: $!";
        my $pid = fork // die "fork: $!";
        if (!$pid) {
            close $rd;
            print $wr $code->($i);
            close $wr;
            POSIX::_exit(0);
        }
        close $wr;
        push @kids, [$pid, $rd];
    }
    return map {
        my $fh = $_->[1];
        my $out = do { local $/; <$fh> } // '';
        waitpid $_->[0], 0;
        $out;
    } @kids;
}

for my $case (['direct', '/late/direct/late.py'], ['relayed', '/late/relay/late.py']) {
    my ($how, $path) = @$case;
    my $url = "http://127.0.0.1:$port$path";
    # The pool exists and every httpd child knows it (the runner names it
    # in the answer to a child's first request of the pool).
    GET($path, 'X-Soak-Id' => "warm$_") for 1 .. 12;
    sleep 0.3;
    my $ua = LWP::UserAgent->new(keep_alive => 1, timeout => 30);
    my $off = log_offset();
    my (@bad, %late_pid);

    # One by one: the next request comes while the late output is on its way.
    for my $i (1 .. 4) {
        my ($a, $b, $c) = ("a$how$i", "b$how$i", "c$how$i");
        my $ra = req($ua, $url, $a, 'main');
        my $rb = req($ua, $url, $b);
        push @bad, grep { $_ ne '' } wrong($ra, $a), wrong($rb, $b);
        $late_pid{pid_of($ra)} = 1;
        # The thread prints while the worker waits; the next request after it.
        $ra = req($ua, $url, "t$a", 'thread');
        $rb = req($ua, $url, "t$b");
        sleep 0.3;
        my $rc = req($ua, $url, "t$c");
        push @bad, grep { $_ ne '' } wrong($ra, "t$a"), wrong($rb, "t$b"), wrong($rc, "t$c");
        $late_pid{pid_of($ra)} = 1;
        # The thread prints after the library's ready line (its worker may
        # be claimed with no wait); the next request after it.
        $ra = req($ua, $url, "r$a", 'ready');
        sleep 0.3;
        $rb = req($ua, $url, "r$b");
        push @bad, grep { $_ ne '' } wrong($ra, "r$a"), wrong($rb, "r$b");
        $late_pid{pid_of($ra)} = 1;
        # Through the runner (a body over CGIplusBodyBuffer: its ready line
        # comes while it holds the record), a second response after the
        # sentinel; then a request that may claim it directly.
        $ra = $ua->post($url . '?late=main', 'X-Soak-Id' => "p$a", Content => 'x' x 100_000);
        $rb = req($ua, $url, "p$b");
        push @bad, grep { $_ ne '' } wrong($ra, "p$a"), wrong($rb, "p$b");
        $late_pid{pid_of($ra)} = 1;
    }
    ok t_cmp(scalar(@bad), 0, "$how, one by one: 36 responses, each its own request's")
        or print STDERR map { "# $_\n" } @bad[0 .. ($#bad < 9 ? $#bad : 9)];
    my (@lines, @missing);
    for (1 .. 30) { # the runner looks at idle workers every second
        @lines = broken_lines(log_since($off));
        my %named = map { /worker pid (\d+)/ ? ($1 => 1) : () } @lines;
        @missing = grep { $_ && !$named{$_} } sort keys %late_pid;
        last unless @missing;
        sleep 0.1;
    }
    ok t_cmp(scalar(@missing), 0, "$how: every worker that wrote late was logged as broken, "
             . "with the script and its pid (" . scalar(@lines) . " lines)")
        or print STDERR map { "# $_\n" } "missing: @missing", @lines;

    # Nobody uses the worker when it writes: the runner finds it.
    $off = log_offset();
    my $r = req($ua, $url, "idle$how", 'main');
    ok t_cmp(wrong($r, "idle$how"), '', "$how: the idle case's own response");
    my $pid = pid_of($r);
    my $seen = 0;
    for (1 .. 40) {
        last if $seen = grep { /pid $pid\b/ } broken_lines(log_since($off));
        sleep 0.1;
    }
    ok t_cmp($seen ? 1 : 0, 1, "$how: output while no request was there stops the worker "
             . "(pid $pid) without a request coming");
    # The line is logged before the runner's SIGKILL, and a killed worker
    # is there (a zombie) until the runner reaps it.
    my $alive = 1;
    for (1 .. 30) {
        last unless $alive = kill(0, $pid) ? 1 : 0;
        sleep 0.1;
    }
    ok t_cmp($alive, 0, "$how: that worker is gone");
    $r = req($ua, $url, "after$how");
    ok t_cmp(wrong($r, "after$how"), '', "$how: the next request is served by another worker");

    # Under load: 10 clients, 40 requests each, on a pool of two; some write
    # late from the main thread, some from a thread.
    $off = log_offset();
    my $t0 = time;
    my @outs = in_children(10, sub {
        my ($c) = @_;
        my $cua = LWP::UserAgent->new(keep_alive => 1, timeout => 60);
        my ($n, @w) = (0);
        for my $i (1 .. 40) {
            my $tok = "L$how$c-$i";
            my $res = req($cua, $url, $tok, $i % 7 == 0 ? 'main' : $i % 11 == 0 ? 'thread' : '');
            my $w = wrong($res, $tok);
            push @w, $w if $w ne '';
            $n++;
        }
        return "n $n\n" . join('', map { "w $_\n" } @w);
    });
    my ($total, @lbad) = (0);
    for (@outs) {
        $total += $1 if /^n (\d+)$/m;
        push @lbad, /^w (.*)$/mg;
    }
    my $secs = time - $t0;
    ok t_cmp($total, 400, "$how, c10 on a pool of two: 400 requests made (" . sprintf('%.1f', $secs) . ' s)');
    ok t_cmp(scalar(@lbad), 0, "$how, c10: every response carried its own request's token, none another's")
        or print STDERR map { "# $_\n" } @lbad[0 .. ($#lbad < 9 ? $#lbad : 9)];
    my $text = log_since($off);
    my $nbroken = () = broken_lines($text);
    ok t_cmp($nbroken >= 10 ? 1 : 0, 1, "$how, c10: the broken workers were logged ($nbroken)");
    my $started = () = $text =~ /CGIPLUS2013: started worker pid \d+ for \Q$script\E/g;
    ok t_cmp($started >= 10 ? 1 : 0, 1, "$how, c10: and replaced ($started started)");

    # The status page counts each request once, whatever worker it went to
    # first, and a worker given back unfit leaves the busy count (it is no
    # request of that worker): 450 requests were made here, on two workers.
    my ($pool) = grep { $_->{script} eq $script && !$_->{retired} &&
                        join(' ', grep { /^POOL_late_/ } @{ $_->{settings}{env} }) eq
                        ($how eq 'relayed' ? 'POOL_late_relay' : '') }
                 @{ status()->{pools} };
    my $c = $pool ? $pool->{counters} : {};
    ok t_cmp($c->{requests} // -1, 450, "$how: the status page counts 450 requests, once each");
    ok t_cmp(($c->{max_active} // 99) <= 2 ? 1 : 0, 1,
             "$how: max active is at most the pool's two workers (" . ($c->{max_active} // '?') . ')');
}

# More unfit workers in a row than one request may meet (1132): on a pool
# of six, six requests held at once take one worker each and all
# six write late, 150 ms after their sentinels. A request sent straight
# after them claims one in that time and finds the output (1130); the
# runner grants it the next, and so on; at the fifth unfit worker it is
# answered 502. It was never whole on any worker's CGIPLUSIN: the
# workers' ledger (each request's first act) never names it. The next
# request is served.
{
    my $path = '/late/six/late.py';
    my $url = "http://127.0.0.1:$port$path";
    # the pool's SOAK_LEDGER: made here, for its workers run as User
    my $ledger = "$vars->{t_logs}/late_six_ledger.txt";
    open my $lfh, '>', $ledger or die "$ledger: $!";
    close $lfh;
    chmod 0666, $ledger;
    GET($path, 'X-Soak-Id' => "warmsix$_") for 1 .. 12;
    # Six at once, each asking $q: each one's worker pid ('bad': a wrong response).
    my $six = sub {
        my ($q) = @_;
        return map { chomp; $_ } in_children(6, sub {
            my $tok = "six$_[0]";
            my $res = LWP::UserAgent->new(timeout => 30)->get("$url?$q", 'X-Soak-Id' => $tok);
            return (wrong($res, $tok) eq '' ? pid_of($res) : 'bad') . "\n";
        });
    };
    # The pool grows on demand: until six held at once get a worker each.
    my (@warm, %distinct);
    for (1 .. 5) {
        @warm = $six->('hold=300');
        %distinct = map { $_ => 1 } grep { /^\d+$/ } @warm;
        last if keys %distinct == 6;
    }
    ok t_cmp(scalar(keys %distinct), 6, "six held at once: six workers answered (@warm)");
    my $off = log_offset();
    my @late = $six->('hold=300&late=main');
    my $r = LWP::UserAgent->new(timeout => 30)->get($url, 'X-Soak-Id' => 'sixprobe');
    my $text = log_since($off);
    my @unfit = grep { /CGIPLUS1130:/ && /\Q$script\E/ } split /\n/, $text;
    ok t_cmp(join(' ', grep { !/^\d+$/ } @late), '', 'six late writers answered their own requests');
    ok t_cmp($r->code, 502, 'a request that meets five unfit workers in a row is answered 502');
    ok t_cmp(scalar(@unfit), 5, 'each of the five is logged (1130) with the script')
        or print STDERR map { "# $_\n" } @unfit;
    ok t_cmp(scalar(grep { /CGIPLUS1132:/ && /5 workers of \Q$script\E in a row/ } split /\n/, $text), 1,
             'and the 502 says why (1132), naming the script');
    $r = LWP::UserAgent->new(timeout => 30)->get($url, 'X-Soak-Id' => 'sixafter');
    ok t_cmp(wrong($r, 'sixafter'), '', 'the next request is served by a sound worker');
    open $lfh, '<', $ledger or die "$ledger: $!";
    my %ran = map { /^(\S+) / ? ($1 => 1) : () } <$lfh>;
    ok t_cmp(join(' ', map { $ran{$_} ? 1 : 0 } qw(six1 six6 sixafter sixprobe)), '1 1 1 0',
             'the ledger names the others and never the 502\'d request: no worker ran it');
}

use POSIX ();
