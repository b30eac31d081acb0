# A peer of the runner that breaks docs/PROTOCOL.md part 1 (a module of
# another version, or a bug), spoken to the suite's runner over its socket
# as httpd speaks to it. Each case is answered as the protocol says and
# logged with its id, and the runner goes on serving:
# - a HELLO of another protocol version, in the frame header (2094) or in
#   the HELLO (2043): HELLO_ACK with the runner's version, then closed; a
#   flood of them logs at most 10 lines a second;
# - after HELLO, a frame with a bad magic or of a type the module does not
#   send (2041): closed;
# - a request refused before the runner keeps it (a BEGIN that is no kv
#   list, a setting with a bad value: 2093) or framed wrongly once kept
#   (STDIN before the last PARAMS, a CONTENT_LENGTH that is no number:
#   2042): END bad-request, and the connection serves the next request;
# - a WebSocket upgrade with malformed PARAMS (2821), a body (2828), a
#   frame an upgrade does not take (2829); on an accepted connection, a
#   message of no kind (2826) or a frame with a bad magic (2830): closed;
# - a forwarded callout answered with two lines (2202: the script gets
#   502) or not at all (2074: 503 no answer after CGIplusCalloutTimeout).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use IO::Socket::UNIX;
use IO::Select;
use Socket qw(SOCK_STREAM);
use lib 't/lib', 't/htdocs/pool/lib';
use MainLog qw(log_offset log_since log_wait);
use PoolTest qw(wire_connect wire_key wire_request wire_frames wire_status wire_send wire_kv);

plan tests => 31;

my $vars = Apache::Test::config()->{vars};
my $sock = "$vars->{t_logs}/cgiplus-runner.sock";
my $callout = "$vars->{documentroot}/scripts/callout.pl";
my $ws = "$vars->{documentroot}/ws/pid.py";
my $key = wire_key();
my $off = log_offset();
my $rpid = wire_status(wire_connect())->{runner}{pid};

sub frame {
    my ($ver, $type, $flags, $reqid, $pl) = @_;
    return pack('CCCCnnNN', 0x43, 0x50, $ver, $type, $flags, 0, $reqid, length $pl) . $pl;
}
sub raw {
    my $s = IO::Socket::UNIX->new(Peer => $sock, Type => SOCK_STREAM) or die "$sock: $!";
    $s->autoflush(1);
    return $s;
}
# whether the runner closed $s (EOF within 5 s)
sub closed {
    my ($s) = @_;
    my $sel = IO::Select->new($s);
    for (1 .. 50) {
        return 0 unless $sel->can_read(5);
        my $got = sysread $s, my $buf, 65536;
        return 1 if !$got;
    }
    return 0;
}
# the HELLO_ACK's version, or 'none'
sub ack_version {
    my ($s) = @_;
    my ($f) = wire_frames($s, 1, 5);
    return $f && $f->{type} == 2 ? (unpack 'n', $f->{payload}) : 'none';
}
my $params = [REQUEST_METHOD => 'GET', QUERY_STRING => '', CONTENT_LENGTH => 0,
              GATEWAY_INTERFACE => 'CGI/1.1'];
sub outcome { my @f = @_; return @f && $f[-1]{type} == 8 ? $f[-1]{outcome} : 'none' }
sub out { return join '', map { $_->{payload} } grep { $_->{type} == 6 } @_ }
# one good request on $s: its output
sub served {
    my ($s, $id) = @_;
    wire_request($s, $id, [script => $callout, uri => '/p'], $params);
    my @f = wire_frames($s, 100, 20);
    return outcome(@f) . ' ' . out(@f);
}

# ---- another protocol version
my $s = raw();
print $s frame(2, 1, 0, 0, pack('nnN', 2, 0, $$) . $key);
ok t_cmp(ack_version($s), 1, "a HELLO whose frame header says version 2: HELLO_ACK with the runner's version 1");
ok t_cmp(closed($s), 1, '... then closed');
ok t_cmp(log_wait($off, qr/CGIPLUS2094: pid $$ speaks protocol version 2, we speak 1; closing/) ? 1 : 0, 1,
         '... logged (2094)');
$s = raw();
print $s frame(1, 1, 0, 0, pack('nnN', 2, 0, $$) . $key);
ok t_cmp(ack_version($s), 1, 'a HELLO of version 2 with the key: HELLO_ACK with version 1');
ok t_cmp(closed($s), 1, '... then closed');
ok t_cmp(log_wait($off, qr/CGIPLUS2043: pid $$ speaks protocol version 2, we speak 1; closing/) ? 1 : 0, 1,
         '... logged (2043)');
# any process of httpd's group may connect: its lines are rate-limited, as
# those of 2200 (no key needed to get there)
my $off_flood = log_offset();
my $acks = 0;
for (1 .. 40) {
    my $f = raw();
    print $f frame(2, 1, 0, 0, 'x' x 40);
    $acks += ack_version($f) eq '1';
}
ok t_cmp($acks, 40, 'forty such HELLOs, each answered');
log_wait($off_flood, qr/CGIPLUS2094:/);
my %per_sec;
my $flood_log = log_since($off_flood);
$per_sec{$1}++ while $flood_log =~ /^\[\w+ \w+ \d+ (\d\d:\d\d:\d\d)\.\d+ \d+\] [^\n]*?CGIPLUS2094:/mg;
my ($busiest) = sort { $per_sec{$b} <=> $per_sec{$a} } keys %per_sec;
# (11: the tenth line of a second may be stamped just past it)
ok t_cmp($busiest && $per_sec{$busiest} <= 11 ? 1 : 0, 1,
         'at most 10 lines (2094) a second (the most: ' . ($busiest ? "$per_sec{$busiest} at $busiest" : 'none') . ')');

# ---- frames the module never sends
$s = wire_connect();
print $s "XP" . substr(frame(1, 12, 0, 1, ''), 2);
ok t_cmp(closed($s), 1, 'a frame with a bad magic: closed');
$s = wire_connect();
wire_send($s, 6, 0, 0, 'output');
ok t_cmp(closed($s), 1, 'a STDOUT frame from the module: closed');
ok t_cmp(log_wait($off, qr/CGIPLUS2041: protocol error from pid $$: .*closing the connection.*\n(?s:.*)CGIPLUS2041: protocol error from pid $$: a frame type the module does not send/) ? 1 : 0, 1,
         '... both logged (2041)');

# ---- requests framed wrongly
$s = wire_connect();
wire_send($s, 3, 0, 1, "\0\0\0\0\0\x09x");
ok t_cmp(outcome(wire_frames($s, 10, 5)), 7, 'a BEGIN that is no kv list: END bad-request');
wire_send($s, 3, 0, 2, wire_kv(script => $callout, uri => '/p', max_workers => 'many'));
my $o2 = outcome(wire_frames($s, 10, 5));
wire_send($s, 3, 0, 22, wire_kv(script => $ws, uri => '/ws', mode => 'websocket', ws_overflow => 'sometimes'));
ok t_cmp("$o2 " . outcome(wire_frames($s, 10, 5)), '7 7',
         'a BEGIN with max_workers "many", an upgrade with ws_overflow "sometimes": END bad-request');
ok t_cmp(log_wait($off, qr/CGIPLUS2093: bad request 1 from pid $$: BEGIN is not a valid kv list.*\n(?s:.*)CGIPLUS2093: bad request 2 from pid $$: .*\n(?s:.*)CGIPLUS2093: bad request 22 from pid $$: /) ? 1 : 0, 1,
         '... all three logged (2093)');
wire_send($s, 3, 0, 3, wire_kv(script => $callout, uri => '/p'));
wire_send($s, 5, 1, 3, '');
ok t_cmp(outcome(wire_frames($s, 10, 5)), 7, 'STDIN before the last PARAMS: END bad-request');
wire_send($s, 3, 0, 4, wire_kv(script => $callout, uri => '/p'));
wire_send($s, 4, 1, 4, wire_kv(REQUEST_METHOD => 'POST', CONTENT_LENGTH => '12x'));
ok t_cmp(outcome(wire_frames($s, 10, 5)), 7, 'a CONTENT_LENGTH that is no number: END bad-request');
ok t_cmp(log_wait($off, qr/CGIPLUS2042: bad request 3 from pid $$: STDIN before the last PARAMS.*\n(?s:.*)CGIPLUS2042: bad request 4 from pid $$: CONTENT_LENGTH is not a decimal number/) ? 1 : 0, 1,
         '... both logged (2042)');
ok t_cmp(served($s, 5), qr/^0 Content-Type: text\/plain\r?\n\r?\npath= pid=\d+/, '... and the connection serves the next request');

# ---- WebSocket upgrades
$s = wire_connect();
wire_send($s, 3, 0, 6, wire_kv(script => $ws, uri => '/ws', mode => 'websocket'));
wire_send($s, 4, 1, 6, "\0\x05\0\0\0\x09ab");
my $o1 = outcome(wire_frames($s, 10, 5));
wire_send($s, 3, 0, 7, wire_kv(script => $ws, uri => '/ws', mode => 'websocket'));
wire_send($s, 4, 1, 7, wire_kv(REMOTE_ADDR => '127.0.0.1'));
wire_send($s, 5, 1, 7, 'body');
ok t_cmp($o1 . ' ' . outcome(wire_frames($s, 10, 5)), '7 7', 'an upgrade with malformed PARAMS, one with a body: END bad-request');
wire_send($s, 3, 0, 8, wire_kv(script => $ws, uri => '/ws', mode => 'websocket'));
wire_send($s, 11, 0, 8, '200 x');
ok t_cmp(outcome(wire_frames($s, 10, 5)) . ' ' . closed($s), 'none 1',
         'an upgrade sent a CALLOUT_ANSWER: closed, no END');
ok t_cmp(log_wait($off, qr/CGIPLUS2821: bad WebSocket upgrade 6 from pid $$: .*\n(?s:.*)CGIPLUS2828: bad WebSocket upgrade 7 from pid $$: .*\n(?s:.*)CGIPLUS2829: bad WebSocket upgrade 8 from pid $$: a frame an upgrade does not take/) ? 1 : 0, 1,
         '... logged (2821, 2828, 2829)');

# ---- an accepted WebSocket connection on which the module breaks the
# protocol: a message of no kind (2826), a frame with a bad magic (2830).
# The runner closes that connection and tells the worker, which serves on.
sub ws_open {
    my ($id) = @_;
    my $c = wire_connect();
    wire_request($c, $id, [script => $ws, uri => '/ws', mode => 'websocket'], [REMOTE_ADDR => '127.0.0.1']);
    my @f = wire_frames($c, 10, 10);
    return ($c, join(' ', map { $_->{type} } @f));
}
# a text message on $c: the worker's answer
sub ws_say {
    my ($c, $id, $text) = @_;
    wire_send($c, 41, 1, $id, "\x01$text");
    my @f = wire_frames($c, 1, 10, until => sub { $_[0]{type} == 41 });
    return @f && $f[-1]{type} == 41 ? substr($f[-1]{payload}, 1) : 'none';
}
my ($wc, $acc) = ws_open(30);
ok t_cmp($acc . ' | ' . ws_say($wc, 30, 'hello'), qr/\b40 8 \| v0 \d+ hello$/, 'an upgrade accepted over the wire, a message answered');
wire_send($wc, 41, 1, 30, "\x03no kind");
ok t_cmp(closed($wc), 1, 'a WS_MSG of no kind (3): the connection is closed');
($wc, $acc) = ws_open(31);
ws_say($wc, 31, 'hello');
print $wc "XP" . substr(frame(1, 41, 1, 31, "\x01x"), 2);
ok t_cmp(closed($wc), 1, 'a frame with a bad magic on a WebSocket connection: closed');
ok t_cmp(log_wait($off, qr/CGIPLUS2826: protocol error on WebSocket connection \d+ \(WS_MSG frame, 8 bytes\); closing it.*\n(?s:.*)CGIPLUS2830: protocol error on WebSocket connection \d+ \(a WS_MSG frame whose header does not unpack: bad magic or version\); closing it/) ? 1 : 0, 1,
         '... both logged (2826, 2830)');
($wc, $acc) = ws_open(32);
ok t_cmp(ws_say($wc, 32, 'again'), qr/^v0 \d+ again$/, '... and the next connection is served');
close $wc;

# ---- forwarded callouts
$s = wire_connect();
sub callout {
    my ($id, $answer) = @_;
    wire_request($s, $id, [script => $callout, uri => '/p', callouts => 1], [@$params, QUERY_STRING => 'map']);
    my @f = wire_frames($s, 100, 20, until => sub { $_[0]{type} == 10 });
    wire_send($s, 11, 0, $id, $answer) if defined $answer;
    push @f, wire_frames($s, 100, 20);
    return out(@f);
}
ok t_cmp(callout(9, "200 /x\n/etc/passwd"), qr/answer=502 httpd's answer was not one line/,
         'a callout answered with two lines: the script gets 502');
ok t_cmp(callout(10, undef), qr/answer=503 no answer/, 'a callout not answered: 503 no answer');
ok t_cmp(log_wait($off, qr/CGIPLUS2202: a CALLOUT_ANSWER for worker pid \d+ is not one line.*\n(?s:.*)CGIPLUS2074: worker pid \d+ of \Q$callout\E: no answer from httpd to a forwarded callout/) ? 1 : 0, 1,
         '... logged (2202, 2074)');
ok t_cmp(wire_status(wire_connect())->{runner}{pid}, $rpid, 'the same runner throughout');
ok t_cmp(log_since($off) =~ /CGIPLUS2038: connection from pid $$ uid 0\n(?s:.*)CGIPLUS2044: connection from pid $$ closed/ ? 1 : 0, 1,
         "its connections' accept and close logged (2038, 2044, debug)");
