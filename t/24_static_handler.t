# phase=handler serves the same tree from the same cache after httpd's
# access control; the quick mode does not see <Location> Require at all
# (public files only, as documented); a handler-phase mount nested in a
# quick one keeps its access control because the longest prefix wins.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use HTTP::Request;
use LWP::UserAgent;

Apache::TestRequest::module('cgiplus_static');
my $vars = Apache::Test::config()->{vars};
my $ua = LWP::UserAgent->new(requests_redirectable => [], keep_alive => 1,
                             timeout => 10);

sub req {
    my ($path, @h) = @_;
    return $ua->request(HTTP::Request->new(
        GET => Apache::TestRequest::resolve_url($path), [@h]));
}

plan tests => 30;

my $r = req('/hstatic/private/secret.txt');
ok t_cmp($r->code, 403, 'phase=handler: Require all denied holds');
ok t_cmp($r->content, 'static-forbidden', 'through ErrorDocument 403');
$r = req('/static/private/secret.txt');
ok t_cmp($r->code, 403, 'nested handler-phase mount under a quick one: denied');
$r = req('/plain/private/secret.txt');
ok t_cmp($r->code, 200, '(the default handler serves it: no Require there)');
$r = req('/hstatic/sub/page.txt');
ok t_cmp($r->code, 200, 'phase=handler: allowed files are served');
ok t_cmp($r->content, "a page below sub\n", 'with their bytes');

# A precompressed copy is sent in the handler phase only where httpd would
# serve it by its own name: <Files "*.gz"> Require all denied keeps
# gzdeny/doc.txt.gz from a client that accepts gzip for doc.txt.
$r = req('/hstatic/gzdeny/doc.txt.gz');
ok t_cmp($r->code, 403, 'phase=handler: the .gz copy is refused by its own name');
$r = req('/hstatic/gzdeny/doc.txt', 'Accept-Encoding' => 'gzip');
ok t_cmp(join('|', $r->code, $r->header('Content-Encoding') // 'identity', $r->content),
         "200|identity|the plain text of doc\n", 'and not sent for the plain file to a client taking gzip');
$r = req('/hstatic/style.css', 'Accept-Encoding' => 'gzip');
ok t_cmp($r->header('Content-Encoding') // 'identity', 'gzip', 'a copy httpd would serve still is');

# Path info after a file, where AcceptPathInfo On allows it: the file, as
# the default handler serves it (the default, 404, is t/20's).
for my $pfx (qw(static hstatic)) {
    $r = req("/$pfx/pinfo/f.txt/extra");
    my $p2 = req('/plain/pinfo/f.txt/extra');
    ok t_cmp($r->code . ' ' . $r->content, $p2->code . ' ' . $p2->content,
             "/$pfx/pinfo/f.txt/extra with AcceptPathInfo On: as the default handler (200)");
}

# A directory's own DirectoryIndex holds in the handler phase (mount without
# index=): mod_dir picks other.html although index.html exists, as for the
# default handler, and the fast path serves mod_dir's choice.
$r = req('/hstatic/dindex/');
my $plain = req('/plain/dindex/');
ok t_cmp($plain->content, "other.html, the DirectoryIndex of dindex\n",
         '(the default handler serves the DirectoryIndex)');
ok t_cmp(join('|', $r->code, $r->content, $r->header('ETag') // '-',
              $r->header('Content-Type') // '-'),
         join('|', $plain->code, $plain->content, $plain->header('ETag') // '-',
              $plain->header('Content-Type') // '-'),
         'phase=handler: the same DirectoryIndex file, status and headers');
# The quick mode cannot see <Directory>: it serves index= (documented).
$r = req('/static/dindex/');
ok t_cmp($r->content, "the index.html of dindex\n", 'quick mode: index= (index.html)');

# MultiViews in the handler phase: mod_negotiation makes the chosen variant
# the request's file; the fast path serves that one (it answered 404 for
# the name that has no file), with negotiation's headers kept.
my @neg = ('Accept-Language' => 'de');
$r = req('/hstatic/mviews/page', @neg);
$plain = req('/plain/mviews/page', @neg);
ok t_cmp($plain->code . ' ' . $plain->content, "200 Seite auf Deutsch\n",
         '(the default handler negotiates the German variant)');
my @hdrs = qw(Content-Language Content-Location Vary TCN ETag Last-Modified
              Content-Type Content-Length);
ok t_cmp(join('|', $r->code, $r->content, map { $r->header($_) // '-' } @hdrs),
         join('|', $plain->code, $plain->content, map { $plain->header($_) // '-' } @hdrs),
         'phase=handler with MultiViews: the same variant, status and headers');

# ContentDigest On: Content-MD5, as the default handler sends it.
$r = req('/hstatic/md5/f.txt');
$plain = req('/plain/md5/f.txt');
ok t_cmp($plain->header('Content-MD5') // '-', 'blAus5H4/Hl0i5LHQelEyQ==',
         '(the default handler sends Content-MD5)');
ok t_cmp(join('|', $r->code, $r->content, $r->header('Content-MD5') // '-'),
         join('|', $plain->code, $plain->content, $plain->header('Content-MD5') // '-'),
         'phase=handler with ContentDigest On: the same Content-MD5');

# The documented limit of the quick mode: <Location> access control is not
# consulted. /static/noindex/ is "Require all denied", yet:
$r = req('/static/noindex/a.txt');
ok t_cmp($r->code, 200, 'quick mode: served before access control (public files only)');

# Who answered: the handler phase logs "handler:", the quick one "quick:".
req('/hstatic/hello.txt');
req('/static/hello.txt');
open my $el, '<', "$vars->{t_logs}/error_log" or die $!;
my @l = <$el>;
ok scalar(grep { /CGIPLUS1503: handler: \S+\/static\/hello\.txt/ } @l) > 0;
ok scalar(grep { /CGIPLUS1503: quick: \S+\/static\/hello\.txt/ } @l) > 0;
ok t_cmp(scalar(grep { /CGIPLUS1503: handler: \S+\/static\/dindex\/other\.html/ } @l) > 0
         ? 1 : 0, 1, "the fast path served mod_dir's choice");
ok t_cmp(scalar(grep { /CGIPLUS1503: handler: \S+\/static\/mviews\/page\.html\.de/ } @l) > 0
         ? 1 : 0, 1, "the fast path served mod_negotiation's choice");
ok t_cmp(scalar(grep { /CGIPLUS1525: .*gzdeny\/doc\.txt\.gz/ } @l) > 0 ? 1 : 0, 1,
         'the refused .gz copy is logged (1525, debug)');
# Non-GET requests to a quick mount are httpd's: the default handler answers
# them as for /plain/ (in this httpd a POST to a file gets the file).
my $p = $ua->request(HTTP::Request->new(
    POST => Apache::TestRequest::resolve_url('/static/hello.txt')));
my $q = $ua->request(HTTP::Request->new(
    POST => Apache::TestRequest::resolve_url('/plain/hello.txt')));
ok t_cmp($p->code, $q->code, 'POST on a quick mount: as the default handler');
ok t_cmp($p->content, $q->content, 'same body');

# Keep-alive and pipelining: four requests written at once on one
# connection (GET, HEAD, 304, range) get four complete answers in order.
my $sock = Apache::TestRequest::vhost_socket('cgiplus_static') or die "connect: $!";
my $etag = req('/plain/hello.txt')->header('ETag');
print $sock join '',
    "GET /static/hello.txt HTTP/1.1\r\nHost: x\r\n\r\n",
    "HEAD /static/big.txt HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /static/hello.txt HTTP/1.1\r\nHost: x\r\nIf-None-Match: $etag\r\n\r\n",
    "GET /static/big.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=0-4\r\nConnection: close\r\n\r\n";
my $all = do { local $/; <$sock> } // '';
close $sock;
my @status = $all =~ m{^HTTP/1\.1 (\d{3})}mg;
ok t_cmp("@status", '200 200 304 206', 'four pipelined answers, in order');
ok t_cmp($all, qr/\r\n\r\nHello, static\nHTTP\/1\.1 200/, 'first body, then the HEAD answer');
ok t_cmp($all, qr/Content-Length: 24800\r\n/, 'HEAD of the large file: its length');
ok t_cmp($all, qr/\r\n\r\nline \z/, 'the range closes the connection');
