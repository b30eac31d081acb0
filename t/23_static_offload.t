# Script offload: a persistent sh script (t/htdocs/static/cgi/offload.cgp)
# answers "X-CGIplus-File: /path"; the module sends that file through the
# static fast path, with the script's status and other headers, only from
# under CGIplusOffloadRoot (here the static test tree).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use HTTP::Request;
use LWP::UserAgent;

my $dir = Apache::Test::vars('documentroot') . '/static';
symlink('/etc/passwd', "$dir/link-out") unless -l "$dir/link-out";
Apache::TestRequest::module('cgiplus_static');
my $ua = LWP::UserAgent->new(requests_redirectable => [], keep_alive => 1,
                             timeout => 20);

sub req {
    my ($method, $q, @h) = @_;
    return $ua->request(HTTP::Request->new(
        $method, Apache::TestRequest::resolve_url("/soff/offload.cgp?$q"), [@h]));
}

sub slurp { open my $fh, '<', shift or die $!; local $/; return scalar <$fh> }

plan tests => 38;

my $r = req(GET => 'hello');
ok t_cmp($r->code, 200, 'offloaded file: 200');
ok t_cmp($r->content, "Hello, static\n", 'its bytes');
ok t_cmp($r->header('Content-Length'), 14, 'its length');
ok t_cmp($r->header('Content-Type'), 'text/plain', 'its MIME type (the script sent none)');
ok t_cmp($r->header('X-Extra'), 'kept', "the script's other headers are kept");
ok !defined $r->header('X-CGIplus-File');
my $plain = $ua->request(HTTP::Request->new(GET =>
    Apache::TestRequest::resolve_url('/plain/hello.txt')));
ok t_cmp($r->header('ETag'), $plain->header('ETag'), 'the ETag of the file');
ok t_cmp($r->header('Last-Modified'), $plain->header('Last-Modified'),
         'and its Last-Modified');
my $etag = $r->header('ETag');

$r = req(GET => 'hello', 'If-None-Match' => $etag);
ok t_cmp($r->code, 304, 'conditional: 304');
$r = req(GET => 'hello', 'If-Match' => '"nope"');
ok t_cmp($r->code, 412, 'conditional: 412');
$r = req(GET => 'hello', Range => 'bytes=7-12');
ok t_cmp($r->code, 206, 'range: 206');
ok t_cmp($r->content, 'static', 'the range');
$r = req(GET => 'hello', Range => 'bytes=50-');
ok t_cmp($r->code, 416, 'unsatisfiable range: 416');
$r = req(HEAD => 'hello');
ok t_cmp($r->code, 200, 'HEAD');
ok t_cmp($r->header('Content-Length'), 14, 'HEAD: length');
ok t_cmp($r->content, '', 'HEAD: no body');
$r = req(POST => 'hello');
ok t_cmp($r->content, "Hello, static\n", 'POST to the script: the file too');

$r = req(GET => 'typed');
ok t_cmp($r->header('Content-Type'), 'application/x-from-script',
         "the script's Content-Type wins");
$r = req(GET => 'status');
ok t_cmp($r->code, 404, "the script's status");
ok t_cmp($r->content, slurp("$dir/errors/404.html"), 'with the file as body');
$r = req(GET => 'big');
ok t_cmp($r->content, slurp("$dir/big.txt"), 'a large file (descriptor path)');
$r = req(GET => 'style', 'Accept-Encoding' => 'br');
ok t_cmp($r->header('Content-Encoding'), 'br', 'precompressed variant');
ok t_cmp($r->content, slurp("$dir/style.css.br"), 'its bytes');
$r = req(GET => 'inside');
ok t_cmp($r->content, "Hello, static\n", 'dot-dot that stays inside');
$r = req(GET => 'body');
ok t_cmp($r->content, "Hello, static\n", "the script's own body is dropped");

# refused, each logged with its id (the script's mistake named)
my $logf = Apache::Test::vars('t_logs') . '/error_log';
my $at = -s $logf;
for my $t (['outside', 403], ['dotdot', 403], ['linkout', 403], ['dir', 403],
           ['relative', 502], ['missing', 404]) {
    my ($q, $want) = @$t;
    $r = req(GET => $q);
    ok t_cmp($r->code, $want, "X-CGIplus-File case '$q'");
    ok $r->content !~ /root:.*:0:0:/ if $q eq 'outside' || $q eq 'linkout';
}
my $log = do { open my $fh, '<', $logf or die "$logf: $!"; seek $fh, $at, 0; local $/; <$fh> // '' };
ok t_cmp($log, qr{CGIPLUS1541: script \S+/offload\.cgp answered X-CGIplus-File /etc/passwd, which is outside every CGIplusOffloadRoot; answering 403},
         'outside: logged (1541)');
ok t_cmp($log, qr{CGIPLUS1512: refused \S+/link-out: a symbolic link on its path leads out of the served directory},
         'linkout: logged (1512)');
ok t_cmp($log, qr{CGIPLUS1517: refused \S+/static/sub: a directory}, 'dir: logged (1517)');
ok t_cmp($log, qr{CGIPLUS1540: script \S+/offload\.cgp answered X-CGIplus-File 'hello\.txt', which is not an absolute path; answering 502},
         'relative: logged (1540)');
$r = req(GET => 'none');
ok t_cmp($r->content, "no offload\n", 'without the header: the script answers');
