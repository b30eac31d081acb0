# Scripts that fail loudly, never silently (issue 12; issue 14 points 1
# and 8), with real scripts under CGIplusMode cgiplus:
# - a worker that prints a start-up banner before its first request: the
#   banner is discarded with one warning (CGIPLUS2079) and never reaches a
#   client (Python, printed at start; sh, printed just before it reads);
# - a plain CGI program (no CGIplus): the first request and every later one
#   are answered as plain CGI, query string and body intact, with one line
#   saying to use CGIplusMode cgi (CGIPLUS2080), no 503 and no backoff;
# - a LOG callout is logged exactly once;
# - HTTP/1.1 framing: a response that is complete before its header goes
#   out has Content-Length (0 bytes too); a streaming one is chunked.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use Apache::TestRequest ();
use lib 't/lib';
use RawHTTP qw(raw_request);

plan tests => 46;

my $hp = Apache::TestRequest::hostport();
my $errlog = Apache::Test::vars('t_logs') . '/error_log';
# this file's lines only: another file before it in the run may hit the
# same scripts (t/57_first_line_gone.t and t/59_fcgi_workers.t: dies.sh)
my $log_start = (-s $errlog) || 0;
sub log_text { open my $fh, '<', $errlog or return ''; seek $fh, $log_start, 0; local $/; return <$fh> // '' }
sub count { my ($re) = @_; my @m = log_text() =~ /$re/g; return scalar @m }
sub get {
    my ($path, %o) = @_;
    return raw_request($hp, $o{method} || 'GET', $path, [], $o{body},
                       { keepalive => $o{keepalive}, half_close => $o{keepalive} });
}
sub hdr {
    my ($r, $name) = @_;
    my @v = map { $_->[1] } grep { lc $_->[0] eq lc $name } @{ $r->{headers} };
    return @v ? $v[0] : undef;
}

# --- a start-up banner (Python: printed and flushed at start)
my ($pid1) = (get('/dropin/banner.py?a=1&b=two')->{body} =~ /pid=(\d+)/);
$pid1 //= -1;
my @r = map { get("/dropin/banner.py?n=$_&x=%20y") } 1 .. 3;
my $first = get('/dropin/banner.py?a=1&b=two');
ok t_cmp($first->{code}, 200, 'banner.py: 200');
ok t_cmp($first->{body}, qr/\Aquery=a=1&b=two pid=\d+\n\z/, 'banner.py: the response alone, no banner');
ok t_cmp(join(' ', map { $_->{code} } @r), '200 200 200', 'banner.py: every request 200');
ok t_cmp(join('|', map { $_->{body} =~ /^(query=\S+)/ ? $1 : $_->{body} } @r),
         'query=n=1&x=%20y|query=n=2&x=%20y|query=n=3&x=%20y', 'banner.py: query strings intact');
my @pids = map { $_->{body} =~ /pid=(\d+)/ ? $1 : 0 } @r, $first;
ok t_cmp(scalar(grep { $_ == $pid1 } @pids), 4, 'banner.py: the same worker serves on');
ok t_cmp(log_text() !~ /banner\.py starting/ ? 1 : 0, 1, 'the banner is in no response and no log line');
ok t_cmp(count(qr/CGIPLUS2079: \S+banner\.py \(worker pid $pid1\) wrote 30 bytes before reading its first request; discarded/),
         1, 'one warning naming the script (2079)');
ok t_cmp(count(qr/CGIPLUS2079[^\n]*banner\.py/), 1, 'and only one');

# --- a banner printed just before the first read (sh)
@r = map { get("/dropin/banner.sh?s=$_") } 1 .. 4;
ok t_cmp(join(' ', map { $_->{code} } @r), '200 200 200 200', 'banner.sh: every request 200');
ok t_cmp(join('|', map { $_->{body} } @r), join('|', map { "query=s=$_\n" } 1 .. 4),
         'banner.sh: the responses alone');
ok t_cmp(count(qr/CGIPLUS2079: \S+banner\.sh \(worker pid \d+\) wrote 17 bytes before reading its first request/),
         1, 'banner.sh: one warning (2079)');
ok t_cmp(count(qr/CGIPLUS10(?:64|76)[^\n]*banner\./), 0, 'no banner script failed a request');

# --- a plain CGI program under CGIplusMode cgiplus
my @p = map { get("/dropin/plain.sh?x=$_&y=two%20words") } 1 .. 5;
ok t_cmp(join(' ', map { $_->{code} } @p), '200 200 200 200 200', 'plain.sh: every request 200, the first included');
ok t_cmp($p[0]->{body}, "plain query=x=1&y=two%20words method=GET\n", 'plain.sh: the first response whole, query string intact');
ok t_cmp(join('|', map { $_->{body} } @p[1 .. 4]),
         join('|', map { "plain query=x=$_&y=two%20words method=GET\n" } 2 .. 5),
         'plain.sh: later ones too');
ok t_cmp(count(qr/CGIPLUS2080: \S+dropin\/plain\.sh does not speak CGIplus: its worker \(pid \d+\) exited without reading its request; running it as plain CGI from now on \(set CGIplusMode cgi for it\)/),
         1, 'one clear line naming the script and CGIplusMode cgi (2080)');
ok t_cmp(count(qr/CGIPLUS(?:1062|1064|1069|1060|2066)[^\n]*plain\.sh/), 0,
         'no crash, backoff or failed start logged for it');
# its first request a POST with a body (another pool): the body was never
# given to the worker that did not read its request, so it is intact
my @q = (get('/dropin-post/plain.sh?p=1', method => 'POST', body => 'abc'),
         get('/dropin-post/plain.sh?p=2', method => 'POST', body => 'def'));
ok t_cmp(join(' ', map { $_->{code} } @q), '200 200', 'plain.sh, POST first: 200 200');
ok t_cmp($q[0]->{body}, "plain query=p=1 method=POST\n", 'plain.sh, POST first: as plain CGI');
ok t_cmp(count(qr/CGIPLUS2080[^\n]*plain\.sh/), 2, 'one line per pool');
# side by side with mod_cgid, and in a CGIplusCompat scope set persistent
for my $i (1 .. 2) {
    my $want = get("/dropin-cgid/plain.sh?c=$i&d=%41");
    my $got = get("/dropin-compat-plus/plain.sh?c=$i&d=%41");
    ok t_cmp("$got->{status_line}|$got->{body}", "$want->{status_line}|$want->{body}",
             "plain.sh request $i, CGIplusCompat + CGIplusMode cgiplus: as mod_cgid");
}
ok t_cmp(count(qr/CGIPLUS2080[^\n]*plain\.sh/), 3, 'and its one line there');

# --- a script that dies at start, writing nothing: a crash (502), then
# the crash-loop backoff, logged as a backoff; never run as plain CGI
my @d = map { get("/dropin/dies.sh?$_") } 1 .. 3;
ok t_cmp(join(' ', map { $_->{code} } @d), '502 502 503', 'dies.sh: 502, 502, then 503 (backoff)');
ok t_cmp(hdr($d[2], 'Retry-After') // 'none', qr/^\d+$/, 'the 503 has Retry-After');
ok t_cmp(count(qr/CGIPLUS1069: workers of \S+dies\.sh keep ending before serving a request: the runner backs off starting new ones; answering 503 \(retry after \d+ s\)/),
         1, 'the 503 is logged as the backoff (1069)');
ok t_cmp(count(qr/CGIPLUS(?:1062|2080)[^\n]*dies\.sh/), 0, 'not as a failed start, nor as plain CGI');

# --- LOG is logged once
my $tok = 'tok' . int(rand(1e9));
my $lr = get("/dropin/logonce.pl?$tok");
ok t_cmp($lr->{body}, "answer=200 logged\n", 'LOG callout answered');
ok t_cmp(count(qr/logonce \Q$tok\E/), 1, 'the LOG line appears exactly once');
ok t_cmp(count(qr/CGIPLUS1110: \S+logonce\.pl says: logonce \Q$tok\E/), 1,
         'logged by httpd for the request (1110)');

# --- framing (HTTP/1.1, keep-alive; the client half-closes to end it)
for my $i (1 .. 6) {
    my $s = get("/dropin/frame.py?n$i", keepalive => 1);
    ok t_cmp(join(',', hdr($s, 'Content-Length') // 'none', hdr($s, 'Transfer-Encoding') // 'none'),
             length("small body n$i\n") . ',none', "small complete response $i: Content-Length, not chunked");
}
for my $i (1 .. 4) {
    my $e = get('/dropin/frame.py?empty', keepalive => 1);
    ok t_cmp(join(',', $e->{code}, hdr($e, 'Content-Length') // 'none', hdr($e, 'Transfer-Encoding') // 'none'),
             '200,0,none', "0-byte response $i: Content-Length: 0, not chunked");
}
my $st = get('/dropin/frame.py?stream', keepalive => 1);
ok t_cmp(hdr($st, 'Transfer-Encoding') // 'none', 'chunked', 'a streaming response is chunked');
ok t_cmp(hdr($st, 'Content-Length') // 'none', 'none', 'without Content-Length');
ok t_cmp($st->{body}, "first\nsecond\n", 'and whole');
ok t_cmp($st->{raw}, qr/\r\n\r\n6\r\nfirst\n\r\n7\r\nsecond\n\r\n0\r\n\r\n\z/, 'its chunks as written');
# HTTP/1.0: no chunking; a complete response still has its length
my $h10 = raw_request($hp, 'GET', '/dropin/frame.py?ten', [], undef, { proto => 'HTTP/1.0' });
ok t_cmp(hdr($h10, 'Content-Length') // 'none', length("small body ten\n"), 'HTTP/1.0: Content-Length');
ok t_cmp($h10->{body}, "small body ten\n", 'HTTP/1.0: body');
