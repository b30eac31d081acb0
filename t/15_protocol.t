# docs/PROTOCOL.md part 2, by its examples: a script that speaks the CGIplus
# protocol by hand (t/htdocs/proto/raw.py, no library) and small Perl
# scripts, through the real httpd and runner, side by side with mod_cgid
# where mod_cgi has an answer: /proto-cgid/ (mod_cgid), /proto-cgi/ (plain
# CGI through the runner), /proto-plus/ (persistent workers).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use IO::Socket::INET;

plan tests => 53;

my $cfg = Apache::Test::config();
my $errlog = Apache::Test::vars('t_logs') . '/error_log';
my $docroot = Apache::Test::vars('documentroot');

# One raw HTTP/1.1 exchange (Connection: close): the bytes as they came.
sub http {
    my ($req, $port) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1',
                                  PeerPort => $port // $cfg->{vars}{port}, Timeout => 20)
        or die "connect: $!";
    $req =~ s/\n/\r\n/g;
    print $s $req;
    my $raw = '';
    while (sysread($s, my $buf, 65536)) { $raw .= $buf }
    return $raw;
}

# Status, headers (lower-case names) and the body, de-chunked.
sub parse {
    my ($raw) = @_;
    my ($head, $body) = split /\r\n\r\n/, $raw, 2;
    my ($status) = $head =~ m{^HTTP/1\.\d (\d{3})};
    my %h = map { /^([^:]+):\s*(.*)$/ ? (lc $1 => $2) : () } split /\r\n/, $head;
    if (($h{'transfer-encoding'} // '') eq 'chunked') {
        my $out = '';
        while ($body =~ s/^([0-9a-fA-F]+)\r\n//) {
            my $n = hex $1;
            last if $n == 0;
            $out .= substr($body, 0, $n, '');
            $body =~ s/^\r\n//;
        }
        $body = $out;
    }
    return ($status // 0, \%h, $body // '');
}

sub get {
    my ($path, $method, $extra, $port) = @_;
    return parse(http(($method // 'GET') . " $path HTTP/1.1\nHost: localhost\n"
                      . ($extra // '') . "Connection: close\n\n", $port));
}

sub post_chunked {
    my ($path, $body) = @_;
    my $len = sprintf '%x', length $body;
    return parse(http("POST $path HTTP/1.1\nHost: localhost\nTransfer-Encoding: chunked\n"
                      . "Connection: close\n\n$len\n$body\n0\n\n"));
}

sub log_text {
    open my $fh, '<', $errlog or die "$errlog: $!";
    local $/;
    return <$fh>;
}

# ---- nph: only a script whose file name starts with nph- (as mod_cgi).
# An nph- script that writes a CGI header instead of a status line: mod_cgid
# passes it raw (the client reads an HTTP/0.9 response); mod_cgiplus refuses.
my $raw = http("GET /proto-cgid/nph-cgihdr.pl HTTP/1.1\nHost: localhost\nConnection: close\n\n");
ok t_cmp(substr($raw, 0, 13), 'Content-Type:', 'mod_cgid: nph- output without a status line goes out raw');
for my $m (qw(proto-cgi proto-plus)) {
    my ($st) = get("/$m/nph-cgihdr.pl");
    ok t_cmp($st, 502, "$m: nph- output without a status line is 502");
}
ok t_cmp(log_text(), qr/CGIPLUS1076: bad header from script \S+nph-cgihdr\.pl: an nph- script must start its output with an HTTP status line/,
         'logged CGIPLUS1076, naming the script');
# A script not named nph- that writes a status line: a malformed header.
my ($st) = get('/proto-cgid/statusline.pl');
ok t_cmp($st, 500, 'mod_cgid: a status line from a non-nph script is a malformed header (500)');
for my $m (qw(proto-cgi proto-plus)) {
    ($st) = get("/$m/statusline.pl");
    ok t_cmp($st, 502, "$m: a status line from a non-nph script is 502");
}

# ---- stdin: plain CGI reaches end of file after the body; a worker's fd 0
# never does, so a script reading it to its end hangs until a timeout.
for my $m (qw(proto-cgid proto-cgi)) {
    my ($s, undef, $b) = post_chunked("/$m/raw.py?readall", 'hello');
    ok t_cmp("$s $b", qr/^200 pid=\d+\nbody=hello\n\z/, "$m: stdin read to its end gives the body");
}
{
    my $t0 = time;
    my ($s) = parse(http("POST /proto-tmo/raw.py?readall HTTP/1.1\nHost: localhost\n"
                         . "Content-Length: 5\nConnection: close\n\nhello"));
    ok t_cmp($s, 504, 'persistent: reading fd 0 past CONTENT_LENGTH blocks (504 at the no-progress timeout)');
    ok t_cmp(time - $t0 < 15 ? 'bounded' : 'slow', 'bounded', '... after about the 1 s timeout');
}
my ($s, $b);
($s, undef, $b) = parse(http("POST /proto-plus/raw.py?x HTTP/1.1\nHost: localhost\n"
                             . "Content-Length: 5\nConnection: close\n\nhello"));
ok t_cmp($b, qr/^pid=\d+\nbody=hello\n\z/, 'persistent: exactly CONTENT_LENGTH bytes read');

# ---- the sentinel line: "\n" or "\r\n" after it ends the response; the
# value followed by anything else is plain output.
my @pids;
for my $q (qw(crlf x crlf)) {
    ($s, undef, $b) = parse(http("POST /proto-plus/raw.py?$q HTTP/1.1\nHost: localhost\n"
                                 . "Content-Length: 3\nConnection: close\n\nabc"));
    ok t_cmp($b, qr/^pid=\d+\nbody=abc\n\z/, "sentinel + " . ($q eq 'crlf' ? 'CR LF' : 'LF')
             . ': the response ends there, nothing added');
    push @pids, $b =~ /pid=(\d+)/;
}
ok t_cmp("@pids", join(' ', ($pids[0]) x 3), 'one worker, in step throughout');
($s, undef, $b) = get('/proto-plus/raw.py?inline');
ok t_cmp($b, qr/^pid=\d+\nbefore CGIPLUS-EOF-[0-9a-f]{32}x after\n\z/,
         'the sentinel value followed by other bytes is output');

# ---- variables are raw bytes, not UTF-8; long values arrive whole.
for my $m (qw(proto-cgid proto-cgi proto-plus)) {
    ($s, undef, $b) = get("/$m/raw.py?show=HTTP_X_RAW", 'GET', "X-Raw: a\xffb\x80\n");
    ok t_cmp($b, qr/\nlen=4 hex=61ff6280\n/, "$m: a header value with bytes >= 0x80 arrives as is");
}
{
    my $long = 'v' x 60000;
    ($s, undef, $b) = get("/proto-plus/raw.py?show=QUERY_STRING&$long", 'GET', '',
                          $cfg->port('cgiplus_longline'));
    ok t_cmp($b, qr/\nlen=60018 hex=[0-9a-f]{36}(76){60000}\n/, 'a 60018-byte variable arrives whole');
}

# ---- Transfer-Encoding: mod_cgid passes the client's header and no length;
# mod_cgiplus de-chunks the body, gives its exact length and drops the header.
($s, undef, $b) = post_chunked('/proto-cgid/raw.py?show=HTTP_TRANSFER_ENCODING', 'hello');
ok t_cmp($b, qr/\nlen=7 hex=6368756e6b6564\n/, 'mod_cgid: HTTP_TRANSFER_ENCODING=chunked');
($s, undef, $b) = post_chunked('/proto-cgid/raw.py?show=CONTENT_LENGTH', 'hello');
ok t_cmp($b, qr/\n\(unset\)\n/, 'mod_cgid: no CONTENT_LENGTH');
for my $m (qw(proto-cgi proto-plus)) {
    ($s, undef, $b) = post_chunked("/$m/raw.py?show=HTTP_TRANSFER_ENCODING", 'hello');
    ok t_cmp($b, qr/\n\(unset\)\n/, "$m: no HTTP_TRANSFER_ENCODING once the body has a length");
    ($s, undef, $b) = post_chunked("/$m/raw.py?show=CONTENT_LENGTH", 'hello');
    ok t_cmp($b, qr/\nlen=1 hex=35\n/, "$m: CONTENT_LENGTH=5");
    ($s, undef, $b) = post_chunked("/$m/raw.py?x", 'hello');
    ok t_cmp($b, qr/\nbody=hello\n\z/, "$m: the de-chunked body");
}

# ---- HEAD: the header waits for the script's end; Content-Length is the
# length of the body the script wrote, none for an empty body.
for my $m (qw(proto-cgi proto-plus)) {
    my %seen;
    for my $n (1 .. 5) {
        my (undef, $h5) = get("/$m/head.pl?body=5", 'HEAD');
        my (undef, $h0) = get("/$m/head.pl?body=0", 'HEAD');
        my (undef, $hb) = get("/$m/head.pl?body=100000", 'HEAD');
        $seen{join ',', $h5->{'content-length'} // '-', $h0->{'content-length'} // '-',
                        $hb->{'content-length'} // '-'}++;
    }
    ok t_cmp(join(' ', keys %seen), '5,-,100000',
             "$m HEAD x5: Content-Length 5, none for no body, 100000, every time");
    my ($s5, $h, $b5) = get("/$m/head.pl?body=5&slow=3", 'HEAD');
    ok t_cmp(($s5 // 0) . ' ' . ($h->{'content-length'} // 'none') . ' ' . ($h->{'x-method'} // ''),
             '200 none HEAD', "$m HEAD of a script still writing after 1 s: header sent without a length");
    ($s5, $h, $b5) = get("/$m/head.pl?body=5");
    ok t_cmp($b5, 'bbbbb', "$m GET after HEAD: body intact");
}
($s) = get('/proto-plus/raw.py?crash', 'HEAD');
ok t_cmp($s, 502, 'HEAD of a script that dies before its sentinel: 502 (no header had gone out)');

# ---- callouts: the table's answers and the lines that get none.
my %callouts = (
    'BOGUS: x'              => '400 unknown callout BOGUS',
    'NOOP'                  => '200 NOOP',
    'LIFETIME'              => '400 LIFETIME wants minutes, 0 or none',
    'MAP-PATH'              => '400 MAP-PATH wants a URL path starting with /',
    'MAP-PATH: /no/such/file' => "200 $docroot/no/such/file",
    'MAP-FILE'              => '400 MAP-FILE wants an absolute file name starting with /',
    "MAP-FILE: $docroot/no/such/file" => '200 /no/such/file',
    'AUTH-FILE'             => '400 AUTH-FILE wants an absolute file name starting with /',
    'WATCH'                 => '200 WATCH',
    'CGIPLUS: neither'      => '400 CGIPLUS wants struct or record',
    'LIFETIME: 0.5'         => '200 lifetime 30000 ms',
    'TIMEOUT-OUTPUT: none'  => '200 timeout-output none',
    'LIFETIME: 0'           => '200 lifetime default',
);
for my $line (sort keys %callouts) {
    (my $q = $line) =~ s/([^A-Za-z0-9\-])/sprintf '%%%02X', ord $1/ge;
    ($s, undef, $b) = get("/proto-plus/raw.py?callout=$q");
    ok t_cmp($b, qr/^pid=\d+\nanswer=\Q$callouts{$line}\E\n\z/, "callout '$line'");
}
# '#' and '!' lines get no answer: the one answer is NOOP's.
($s, undef, $b) = get('/proto-plus/raw.py?callout=%23%20note%0A!NOOP%3A%20a%0ANOOP%3A%20b');
ok t_cmp($b, qr/^pid=\d+\nanswer=200 NOOP\n\z/, "'#' and '!' lines are not answered");
($s, undef, $b) = get('/proto-plus/raw.py?callout=NOOP%3A%20c');
ok t_cmp($b, qr/^pid=\d+\nanswer=200 NOOP\n\z/, '... and the channel stays in step');

# ---- README's status page example works in the demo's configuration
# (examples/demo.conf.in, made by scripts/demo-conf as run-demo makes it):
# `Require ip` needs mod_authz_host, which the demo loads.
{
    my $top = Apache::Test::vars('top_dir');
    my $run = Apache::Test::vars('t_logs') . '/demo';
    local $ENV{APXS} = $cfg->{vars}{apxs};
    system("$top/scripts/demo-conf", $top, $top, $run, 1, 'nobody', 'nogroup') == 0
        or die "scripts/demo-conf failed\n";
    open my $rd, '<', "$top/README.md" or die $!;
    my $readme = do { local $/; <$rd> };
    my ($block) = $readme =~ m{(<Location /cgiplus-status>.*?</Location>)}s;
    (my $want = $block // 'none') =~ s/^[ \t]*#[^\n]*\n//mg; # comment lines
    open my $conf, '<', "$run/httpd.conf" or die $!;
    my $demo = do { local $/; <$conf> };
    ok t_cmp(index($demo, $want) >= 0 ? 'same' : "README: $want", 'same',
             "the demo configuration has README's status page block");
    my $syntax = `$cfg->{vars}{httpd} -t -f $run/httpd.conf 2>&1`;
    ok t_cmp($syntax, qr/Syntax OK/, 'and httpd accepts it (Require ip: mod_authz_host loaded)');
}
