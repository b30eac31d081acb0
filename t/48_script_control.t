# The runner's side of the script protocol: Script-Control (taken out of
# the header; X-stream-mode vs X-buffer-records), MAP-PATH, MAP-FILE,
# AUTH-FILE, LOG and WATCH callouts forwarded to the module as CALLOUT
# frames when it says it answers them (answered "503 no answer" if it does
# not, in CGIplusCalloutTimeout), and
# client aborts: the worker is stopped, unless the script said no-abort.
# Wire-protocol clients play the module where httpd's side is not there yet.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Socket;
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget hstart hfinish status pool_of wait_for wire_connect wire_request
                wire_frames);

plan tests => 50;

my $vars = Apache::Test::config()->{vars};
my $script = "$vars->{documentroot}/pool/app.pl";
my $id = 0;
sub req {
    my ($s, $query, @extra) = @_;
    wire_request($s, ++$id, [script => $script, uri => "/wire?$query", env => 'POOL_wire48=wire48',
                             max_workers => 1, @extra],
                 [QUERY_STRING => $query, REQUEST_METHOD => 'GET', CONTENT_LENGTH => 0]);
    return $id;
}
sub log_from { open my $fh, '<', "$vars->{t_logs}/error_log" or return '';
                seek $fh, $_[0], 0; local $/; <$fh> // '' }
sub out { join '', map { $_->{payload} } grep { $_->{type} == 6 } @_ }
sub pid_of { ($_[0] =~ /pid=(\d+)/)[0] // 0 }
sub frame { my ($s, $type, $reqid, $pl) = @_;
    syswrite $s, pack('CCCCnnNN', 0x43, 0x50, 1, $type, 0, 0, $reqid, length $pl) . $pl }

my $s = wire_connect();

# --- X-stream-mode (the default): each write is passed on at once.
req($s, 'ticks=6&gap=0.2'); # (apart enough that a stalled reader cannot merge two)
my @f = wire_frames($s, 100, 10);
my @so = grep { $_->{type} == 6 } @f;
ok t_cmp(scalar(@so) >= 6 ? 1 : 0, 1, scalar(@so) . ' STDOUT frames for 6 writes (stream mode)');
ok t_cmp(out(@f), qr/tick 6\n\z/, 'all the output arrived');

# --- X-buffer-records: the writes are coalesced; the header line is gone.
req($s, 'sc=X-buffer-records&ticks=6&gap=0.05');
@f = wire_frames($s, 100, 5);
@so = grep { $_->{type} == 6 } @f;
ok t_cmp(scalar(@so) <= 3 ? 1 : 0, 1, scalar(@so) . ' STDOUT frames with X-buffer-records');
ok t_cmp(out(@f), qr/tick 1\ntick 2\ntick 3\ntick 4\ntick 5\ntick 6\n\z/, 'the same output');
ok t_cmp(out(@f) =~ /Script-Control/i ? 1 : 0, 0, 'Script-Control is taken out of the header');
ok t_cmp(out(@f), qr/^Content-Type: text\/plain\nX-Pid: \d+\n\n/, 'the other header lines stay');
my ($xpid) = out(@f) =~ /^X-Pid: (\d+)/m;
open my $dl, '<', "$vars->{t_logs}/error_log" or die;
ok t_cmp((do { local $/; <$dl> }) =~ /CGIPLUS2076: worker pid $xpid of \S+app\.pl: Script-Control X-buffer-records/ ? 1 : 0, 1,
         'the runner logged the directive it applied (2076, debug)');

# --- a directive the runner does not know: ignored (logged), the line still
# taken out, the response whole and the worker serving on.
my $off = -s "$vars->{t_logs}/error_log";
req($s, 'sc=X-no-such-directive48;+X-buffer-records&lines=2');
@f = wire_frames($s, 100, 5);
ok t_cmp(out(@f), qr/^Content-Type: text\/plain\nX-Pid: \d+\n\n.*line 1\nline 2\n\z/s,
         'an unknown Script-Control directive: the line goes, the response is whole');
ok t_cmp(@f ? $f[-1]{outcome} : -1, 0, 'and the request ends ok');
($xpid) = out(@f) =~ /^X-Pid: (\d+)/m;
ok t_cmp(log_from($off), qr/CGIPLUS2075: worker pid $xpid of \S+app\.pl: Script-Control directive 'X-no-such-directive48' ignored/,
         'the runner logged the directive it ignored (2075, debug)');

# --- MAP-PATH forwarded to the module and its answer relayed.
my $t = req($s, 'callout=MAP-PATH:%20/x/y', callouts => 1);
@f = wire_frames($s, 100, 3, until => sub { $_[0]{type} == 10 });
ok t_cmp(@f ? "$f[-1]{type} $f[-1]{payload}" : '', '10 MAP-PATH: /x/y', 'MAP-PATH arrives as a CALLOUT frame');
frame($s, 11, $t, '200 /srv/x/y');
@f = wire_frames($s, 100, 3);
ok t_cmp(out(@f), qr/^answer=200 \/srv\/x\/y$/m, 'the CALLOUT_ANSWER reaches the script');

# --- LOG: forwarded, and logged once: by httpd (1110), not by the runner.
$t = req($s, 'callout=LOG:%20wire-log-line-48', callouts => 1);
@f = wire_frames($s, 100, 3, until => sub { $_[0]{type} == 10 });
ok t_cmp(@f ? $f[-1]{payload} : '', 'LOG: wire-log-line-48', 'LOG arrives as a CALLOUT frame');
frame($s, 11, $t, '200 logged by httpd');
@f = wire_frames($s, 100, 3);
ok t_cmp(out(@f), qr/^answer=200 logged by httpd$/m, 'and the answer is relayed');
open my $lf, '<', "$vars->{t_logs}/error_log" or die;
ok t_cmp((do { local $/; <$lf> }) =~ /CGIPLUS2032: \S+app\.pl \(pid \d+\) says: wire-log-line-48/
         ? 1 : 0, 0, 'the runner does not log it as well (no 2032)');
close $lf;
# A client that does not answer callouts: the runner answers and logs it.
req($s, 'callout=LOG:%20wire-log-line-48b');
@f = wire_frames($s, 100, 3);
ok t_cmp(out(@f), qr/^answer=200 logged$/m, 'without callouts the runner answers LOG');
open $lf, '<', "$vars->{t_logs}/error_log" or die;
my @once = (do { local $/; <$lf> }) =~ /says: wire-log-line-48b/g;
ok t_cmp(scalar(@once), 1, 'and logs it, once (2032)');

# --- WASD's MAP-FILE, AUTH-FILE and WATCH: forwarded as MAP-PATH is, the
# line as the script wrote it; without callouts the runner answers.
for my $c (['MAP-FILE: /srv/f48', '200 /f48'], ['AUTH-FILE: /srv/f48', '200 access allowed'],
           ['WATCH: wire-watch-48', '200 WATCH']) {
    my ($line, $ans) = @$c;
    (my $q = $line) =~ s/([^A-Za-z0-9\/-])/sprintf '%%%02X', ord $1/ge;
    $t = req($s, "callout=$q", callouts => 1);
    @f = wire_frames($s, 100, 3, until => sub { $_[0]{type} == 10 });
    ok t_cmp(@f ? "$f[-1]{type} $f[-1]{payload}" : '', "10 $line", "$line arrives as a CALLOUT frame");
    frame($s, 11, $t, $ans);
    @f = wire_frames($s, 100, 3);
    ok t_cmp(out(@f), qr/^answer=\Q$ans\E$/m, 'and its answer is relayed');
}
$off = -s "$vars->{t_logs}/error_log";
for my $c (['MAP-FILE:%20/srv/f48', '501 MAP-FILE not available'],
           ['auth-file:%20/srv/f48', '501 auth-file not available'],
           ['WATCH:%20wire-watch-48b', '200 WATCH']) {
    req($s, "callout=$c->[0]");
    @f = wire_frames($s, 100, 3);
    ok t_cmp(out(@f), qr/^answer=\Q$c->[1]\E$/m, "without callouts: $c->[1]");
}
ok t_cmp(log_from($off), qr/CGIPLUS3751: \S+app\.pl \(pid \d+\) watch: wire-watch-48b$/m,
         'and the runner logs the WATCH (3751, debug)');
ok t_cmp(log_from($off) =~ /watch: wire-watch-48$/m ? 1 : 0, 0, 'the forwarded one it did not log');
# A CR inside a line httpd would get: answered 400, never sent (the module
# takes a CALLOUT for one text line).
req($s, 'callout=MAP-PATH:%20/a%0Db', callouts => 1);
@f = wire_frames($s, 100, 3);
ok t_cmp((grep { $_->{type} == 10 } @f) ? 1 : 0, 0, 'a line with a CR: no CALLOUT frame');
ok t_cmp(out(@f), qr/^answer=400 a callout line httpd answers may not hold a CR or NUL byte$/m,
         'it is answered 400');

# --- no answer from the module: "503 no answer" after 1 s.
my $t0 = time;
req($s, 'callout=MAP-PATH:%20/nobody', callouts => 1);
@f = wire_frames($s, 100, 5);
ok t_cmp(out(@f), qr/^answer=503 no answer$/m, 'an unanswered callout gets 503 no answer');
ok t_cmp(time - $t0 > 0.9 && time - $t0 < 2 ? 1 : 0, 1, sprintf('after %.2f s', time - $t0));

# --- an answer that comes after the runner answered 503 itself: dropped
# (logged), the script's output goes on unharmed and its worker serves again.
$off = -s "$vars->{t_logs}/error_log";
$t = req($s, 'callout=MAP-PATH:%20/late48&ticks=8&gap=0.25', callouts => 1);
@f = wire_frames($s, 100, 5, until => sub { $_[0]{type} == 6 && $_[0]{payload} =~ /tick 1/ });
frame($s, 11, $t, '200 /srv/late48');
push @f, wire_frames($s, 100, 5);
ok t_cmp(out(@f), qr/^answer=503 no answer\ntick 1\n.*tick 8\n\z/ms,
         'a late CALLOUT_ANSWER: the script had 503 and runs to its end');
ok t_cmp(@f ? $f[-1]{outcome} : -1, 0, 'the request ends ok');
my $lpid = pid_of(out(@f));
ok t_cmp(log_from($off), qr/CGIPLUS2073: a CALLOUT_ANSWER for worker pid $lpid that waits for none; dropped/,
         'the late answer was dropped (2073, debug)');
req($s, 'x=late');
ok t_cmp(pid_of(out(wire_frames($s, 100, 3))), $lpid, 'the same worker serves the next request');

# --- a module that does not answer callouts: not forwarded at all.
req($s, 'callout=MAP-PATH:%20/x');
@f = wire_frames($s, 100, 3);
ok t_cmp((grep { $_->{type} == 10 } @f) ? 1 : 0, 0, 'without "callouts" no CALLOUT frame');
ok t_cmp(out(@f), qr/^answer=501 MAP-PATH not available$/m, 'and MAP-PATH answers 501');

# --- ABORT: the worker is drained to its sentinel and serves again.
req($s, 'x=1');
my $before = pid_of(out(wire_frames($s, 100, 3)));
$t = req($s, 'ticks=20&gap=0.05');
sleep 0.3;
frame($s, 9, $t, '');
@f = wire_frames($s, 100, 3);
ok t_cmp(@f ? $f[-1]{outcome} : -1, 8, 'ABORT is answered END aborted');
sleep 1; # the rest of its response, read and dropped
req($s, 'x=2');
my $after = pid_of(out(wire_frames($s, 100, 3)));
ok t_cmp($after, $before, 'the aborted request\'s worker was drained and serves again');
my ($end) = grep { $_->{pid} == $before } @{ pool_of(status(), 'wire48')->{ended} };
ok t_cmp($end ? $end->{reason} : '', '', 'it did not end');

# --- ABORT with no-abort: it runs on (output discarded) and is used again.
$t = req($s, 'sc=no-abort&ticks=20&gap=0.05');
sleep 0.15;
frame($s, 9, $t, '');
@f = wire_frames($s, 100, 5);
ok t_cmp(@f ? $f[-1]{outcome} : -1, 8, 'no-abort: END aborted all the same');
ok t_cmp(out(@f) =~ /tick 20/ ? 1 : 0, 0, 'no output after the abort');
req($s, 'x=3');
ok t_cmp(pid_of(out(wire_frames($s, 100, 10))), $after, 'and the same worker serves the next request');

# --- the module goes away mid-request (an httpd child killed, say): its
# connection closes with no ABORT; the request is dropped (2005) and its
# worker drained, serving again.
$off = -s "$vars->{t_logs}/error_log";
my $gone = wire_connect();
my $gid = req($gone, 'ticks=10&gap=0.05');
wire_frames($gone, 1, 5, until => sub { $_[0]{type} == 6 });
close $gone;
my $seen = '';
wait_for(sub { ($seen = log_from($off)) =~ /CGIPLUS2005/ }, 5);
ok t_cmp($seen, qr{CGIPLUS2005: request $gid \(/wire\?ticks=10&gap=0\.05\): the module went away},
         'a module connection closed mid-request: the request is dropped (2005, debug)');
sleep 1; # the rest of its response, read and dropped
req($s, 'x=4');
ok t_cmp(pid_of(out(wire_frames($s, 100, 10))), $after, 'its worker was drained and serves again');
close $s;

# --- through httpd: a client that goes away mid-response costs no worker:
# it is drained and serves again; past the bound (one more output timeout,
# 3 s here) it is stopped; no-abort is drained the same way.
my $p0 = pid_of(hget('/pool/abort/app.pl')->{body});
my $h = hstart('/pool/abort/app.pl?ticks=20&gap=0.05');
sleep 0.4;
close $h->{sock};
sleep 1;
ok t_cmp(pid_of(hget('/pool/abort/app.pl')->{body}), $p0,
         'an HTTP client leaving mid-response: its worker is drained and serves again');
ok t_cmp(pool_of(status(), 'abort')->{counters}{deaths}{aborted} // 0, 0, 'none was stopped');
$h = hstart('/pool/abort/app.pl?sc=no-abort&ticks=20&gap=0.05');
sleep 0.4;
close $h->{sock};
sleep 1;
my $p1 = pid_of(hget('/pool/abort/app.pl')->{body});
ok t_cmp($p1, $p0, 'with no-abort too');
$h = hstart('/pool/abort/app.pl?ticks=100&gap=0.05');
sleep 0.4;
close $h->{sock};
ok t_cmp(wait_for(sub { my $p = pool_of(status(), 'abort');
                        $p && ($p->{counters}{deaths}{aborted} // 0) == 1 }, 6) ? 1 : 0, 1,
         'one that would take longer than the bound is stopped (aborted)');
