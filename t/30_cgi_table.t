# mod_cgi's behaviour, table-driven in the style of httpd-tests'
# t/modules/cgi.t: return codes and bodies, AcceptPathInfo on/off/default,
# nph, stderr, broken scripts, HEAD, If-Modified-Since, POST bodies around
# buffer sizes. The same table runs twice over the same scripts: under
# /cgi-plain/ (CGIplusMode cgi: a process per request) and /cgi-plus/
# (persistent workers).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp t_start_error_log_watch t_finish_error_log_watch);
use Apache::TestRequest ();
use LWP::UserAgent;
use Time::HiRes qw(sleep);
use HTTP::Request;

# path => [ status, body (after chomp; undef: not checked) ]
my @table = (
    [ 'perl.pl',                      200, 'perl cgi' ],
    [ 'bogus-perl.pl',                502, undef ],
    [ 'nph-test.pl',                  200, 'ok' ],
    [ 'sh.sh',                        200, 'sh cgi' ],
    [ 'bogus-sh.sh',                  502, undef ],
    [ 'acceptpathinfoon.sh',          200, '' ],
    [ 'acceptpathinfoon.sh/foo',      200, '/foo' ],
    [ 'acceptpathinfooff.sh',         200, '' ],
    [ 'acceptpathinfooff.sh/foo',     404, undef ],
    [ 'acceptpathinfodefault.sh',     200, '' ],
    [ 'acceptpathinfodefault.sh/foo', 200, '/foo' ],
    [ 'stderr1.pl',                   200, 'this is stdout' ],
    [ 'stderr2.pl',                   200, 'this is also stdout' ],
    [ 'stderr3.pl',                   200, 'this is more stdout' ],
    [ 'nph-stderr.pl',                200, 'this is nph-stdout' ],
    [ 'malformed.pl',                 502, undef ],
    [ 'folded.pl',                    502, undef ],
    [ 'smallheader.pl',               502, undef ],
    [ 'smallheader.pl?fit',           200, 'small header body' ],
    [ 'longline.pl',                  502, undef ],
    [ 'header10k.pl',                 200, 'ten k header' ],
    [ 'no-output.pl',                 502, undef ],
    [ 'status500.pl',                 500, 'script error page' ],
    [ 'status.pl',                    202, 'accepted' ],
    [ 'redirect-local.pl',            200, 'perl cgi' ],
    [ 'redirect-abs.pl',              302, undef ],
    [ 'no-such-script.pl',            404, undef ],
    [ 'noheader.pl',                  502, undef ],
    [ 'badstatus.pl?099',             502, undef ],
    [ 'badstatus.pl?600',             502, undef ],
    [ 'badstatus.pl?abc',             502, undef ],
    [ 'badstatus.pl?404%20Gone',      404, 'status body' ],
);
# Why each 502 is answered: the reason the module logs (CGIPLUS1076 etc.).
my %reason = (
    'malformed.pl'   => qr/CGIPLUS1076: bad header from script \S+malformed\.pl: malformed header line \(no colon\)/,
    'folded.pl'      => qr/CGIPLUS1076: bad header from script \S+folded\.pl: folded header line/,
    'smallheader.pl' => qr/CGIPLUS1076: bad header from script \S+smallheader\.pl: the header is larger than CGIplusMaxHeaderSize \(2048 bytes\)/,
    'longline.pl'    => qr/CGIPLUS1076: bad header from script \S+longline\.pl: a header line of 9008 bytes is longer than/,
    'bogus-sh.sh'    => qr/CGIPLUS1076: bad header from script \S+bogus-sh\.sh: (?:Premature end of script headers|malformed header line)/,
    'no-output.pl'   => qr/CGIPLUS10(?:60|64): /,
    'badstatus.pl'   => qr/CGIPLUS1076: bad header from script \S+badstatus\.pl: invalid Status 'abc'/,
    'bogus-perl.pl'  => qr/CGIPLUS1064: End of script output before headers: \S+bogus-perl\.pl \(worker pid \d+ exited with status 255 before its response\)/,
);
my @post_sizes = (10, 99, 250, 255, 256, 257, 258, 1024, 65535, 65536, 65537, 200_000);
my @modes = ('/cgi-plain', '/cgi-plus');

plan tests => @modes * (2 * @table + 1 + 4 + 5 + 3 + 2 * @post_sizes + 2) + keys(%reason);

my $ua = LWP::UserAgent->new(max_redirect => 0, keep_alive => 1, timeout => 20);
my $base = 'http://' . Apache::TestRequest::hostport();

t_start_error_log_watch();
for my $m (@modes) {
    for my $row (@table) {
        my ($path, $rc, $body) = @$row;
        my $r = $ua->get("$base$m/$path");
        ok t_cmp($r->code, $rc, "$m/$path: status");
        if (defined $body) {
            my $got = $r->content;
            chomp $got;
            ok t_cmp($got, $body, "$m/$path: body");
        }
        elsif ($rc == 302) {
            ok t_cmp(scalar $r->header('Location'), 'http://example.invalid/elsewhere',
                     "$m/$path: Location passed on");
        }
        else {
            ok t_cmp($r->content !~ /never seen/, 1, "$m/$path: no script body");
        }
    }

    # nph: the script's own status line and headers reach the client.
    my $r = $ua->get("$base$m/nph-test.pl");
    ok t_cmp(scalar $r->header('X-Nph'), 'yes', "$m/nph-test.pl: nph header");

    # HEAD: the script runs, the body is dropped.
    $r = $ua->request(HTTP::Request->new(HEAD => "$base$m/perl.pl"));
    ok t_cmp($r->code, 200, "$m HEAD perl.pl: 200");
    ok t_cmp($r->content, '', "$m HEAD perl.pl: no body");
    ok t_cmp(scalar $r->header('Content-Type'), qr{^text/plain}, "$m HEAD: Content-Type");
    $r = $ua->get("$base$m/perl.pl");
    ok t_cmp($r->content, "perl cgi\n", "$m GET after HEAD: same worker state is fine");

    # If-Modified-Since, decided by httpd from the script's Last-Modified.
    $r = $ua->get("$base$m/lastmod.pl");
    ok t_cmp($r->code, 200, "$m lastmod.pl: 200 without a condition");
    ok t_cmp($r->content, "fresh\n", "$m lastmod.pl: body");
    $r = $ua->get("$base$m/lastmod.pl", 'If-Modified-Since' => 'Tue, 01 Jan 2002 00:00:00 GMT');
    ok t_cmp($r->code, 304, "$m lastmod.pl: 304 when not modified since");
    ok t_cmp($r->content, '', "$m lastmod.pl: 304 has no body");
    $r = $ua->get("$base$m/lastmod.pl", 'If-Modified-Since' => 'Sat, 01 Jan 2000 00:00:00 GMT');
    ok t_cmp($r->code, 200, "$m lastmod.pl: 200 when modified since");

    # Script-Control is for the runner, never for the client.
    $r = $ua->get("$base$m/sse.pl?1,0,noabort");
    ok t_cmp($r->code, 200, "$m sse.pl with Script-Control: 200");
    ok t_cmp(scalar $r->header('Script-Control'), undef, "$m Script-Control not passed on");
    ok t_cmp($r->content, "data: event 1\n\n", "$m sse.pl single event");

    # POST bodies around buffer sizes (and around the 64 KiB frame size).
    my $i = 0;
    for my $len (@post_sizes) {
        my $content = join '', map { chr(($i + $_) % 251 + 1) } 0 .. $len - 1;
        $i++;
        $r = $ua->post("$base$m/post.pl", Content => $content,
                       'Content-Type' => 'application/octet-stream');
        ok t_cmp($r->code, 200, "$m POST $len bytes: 200");
        ok t_cmp($r->content eq "len=$len\n$content" ? 1 : $r->content =~ /^(len=\d+)/ ? $1 : 'other',
                 1, "$m POST $len bytes: echoed exactly");
    }
}
my $log = join '', t_finish_error_log_watch();
for my $script (sort keys %reason) {
    ok t_cmp($log, $reason{$script}, "error log says why $script failed");
}

# Each stderr line names the process that wrote it: the pid the runner
# announced (STARTED) is the one the script itself reports.
for my $m (@modes) {
    my $tok = 'tok' . int(rand 1e9);
    my $elog = Apache::Test::vars('t_logs') . '/error_log';
    my $off = -s $elog;
    my $r = $ua->get("$base$m/stderr-pid.pl?$tok");
    my $log = '';
    for (1 .. 200) { # stderr reaches the log asynchronously: 10 s at most
        open my $fh, '<', $elog or last;
        seek $fh, $off, 0;
        $log = do { local $/; <$fh> } // '';
        last if $log =~ /stderr-pid says \Q$tok\E$/m;
        sleep 0.05;
    }
    my ($own) = $r->content =~ /^pid=(\d+)$/m;
    my ($logged) = $log =~ /CGIPLUS1050: stderr from \S+stderr-pid\.pl \(pid (\d+)\): stderr-pid says \Q$tok\E$/m;
    ok t_cmp($logged // 'no pid', qr/^\d+$/, "$m stderr line tagged with a pid");
    ok t_cmp($logged // 0, $own // -1, "$m the tagged pid is the script's own");
}
