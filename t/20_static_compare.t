# The static fast path answers as httpd's default handler does: the same
# test tree is requested through /static/ (quick handler), /hstatic/
# (phase=handler) and /plain/ (Alias, httpd's default handler), and every
# response is compared field by field: status, validators, type, length,
# ranges, conditionals, HEAD, error documents, other methods.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use HTTP::Request;
use LWP::UserAgent;

my $dir = Apache::Test::vars('documentroot') . '/static';
symlink('hello.txt', "$dir/link-in.txt") unless -l "$dir/link-in.txt";

Apache::TestRequest::module('cgiplus_static');
my $ua = LWP::UserAgent->new(requests_redirectable => [], keep_alive => 1,
                             timeout => 10);

sub req {
    my ($method, $path, @h) = @_;
    return $ua->request(HTTP::Request->new(
        $method, Apache::TestRequest::resolve_url($path), [@h]));
}

my @fields = ('Content-Length', 'Content-Type', 'ETag', 'Last-Modified',
              'Accept-Ranges', 'Content-Range', 'Content-Encoding', 'Allow',
              'Content-Language');

# Multipart boundaries and prefixes in Location differ by design.
sub norm {
    my ($v, $prefix) = @_;
    return '(none)' unless defined $v;
    $v =~ s/boundary=(\S+)/boundary=B/;
    $v =~ s{/$prefix/}{/P/}g;
    return $v;
}

sub norm_body {
    my ($res, $prefix) = @_;
    my $b = $res->content;
    if ((scalar $res->header('Content-Type') // '') =~ /boundary=(\S+)/) {
        my $bd = quotemeta $1;
        $b =~ s/$bd/B/g;
    }
    return norm($b, $prefix);
}

my @files = qw(empty.txt hello.txt index.html big.txt style.css data.cgpt noext
               sub/page.txt link-in.txt);
my @cases;
for my $f (@files) {
    my $ref = req(GET => "/plain/$f");
    my $etag = $ref->header('ETag');
    my $lm = $ref->header('Last-Modified');
    push @cases,
        [GET => $f],
        [HEAD => $f],
        [GET => $f, 'If-None-Match' => $etag],
        [HEAD => $f, 'If-None-Match' => $etag],
        [GET => $f, 'If-Modified-Since' => $lm],
        [GET => $f, 'If-Match' => '"no-such-etag"'],
        [GET => $f, 'If-Unmodified-Since' => 'Mon, 01 Jan 2001 00:00:00 GMT'],
        [GET => $f, 'If-Match' => $etag],
        [GET => $f, 'If-None-Match' => '"other"'],
        [GET => $f, Range => 'bytes=0-4'],
        [GET => $f, Range => 'bytes=-3'],
        [GET => $f, Range => 'bytes=0-1,5-6'],
        [GET => $f, Range => 'bytes=100000-'],
        [GET => $f, Range => 'bytes=2-5', 'If-Range' => $etag],
        [GET => $f, Range => 'bytes=2-5', 'If-Range' => '"other"'],
        [HEAD => $f, Range => 'bytes=0-4'];
}
push @cases,
    [GET => ''],                  # index.html
    [GET => 'sub/'],
    [GET => 'sub'],               # 301 to sub/
    [GET => 'noindex/'],          # no index: httpd's 403
    [GET => 'no-such-file'],      # 404 through ErrorDocument
    [GET => 'sub/no-such-file'],
    [GET => 'hello.txt/extra'],   # path info on a file: 404
    [POST => 'hello.txt'],        # 405, as the default handler
    [OPTIONS => 'hello.txt'],
    [PUT => 'hello.txt'];

my @prefixes = qw(static hstatic);
plan tests => @prefixes * @cases * (@fields + 3) + 4;

for my $prefix (@prefixes) {
    for my $c (@cases) {
        my ($method, $rel, @h) = @$c;
        my $label = "$method /$prefix/$rel" . (@h ? " [@h]" : '');
        my $got = req($method, "/$prefix/$rel", @h);
        my $want = req($method, "/plain/$rel", @h);
        ok t_cmp($got->code, $want->code, "$label: status");
        ok t_cmp(norm(scalar $got->header('Location'), $prefix),
                 norm(scalar $want->header('Location'), 'plain'), "$label: Location");
        for my $f (@fields) {
            my ($g, $w) = (scalar $got->header($f), scalar $want->header($f));
            if ($f eq 'Content-Length' && $got->is_redirect && defined $g && defined $w) {
                # the body names the URL: only the prefix differs
                $g -= length $prefix;
                $w -= length 'plain';
            }
            ok t_cmp(norm($g, $prefix), norm($w, 'plain'), "$label: $f");
        }
        ok t_cmp(norm_body($got, $prefix), norm_body($want, 'plain'), "$label: body");
    }
}

# The quick handler itself answered (not httpd's path behind it), and the
# request has its access-log line.
my $vars = Apache::Test::config()->{vars};
my $res = req(GET => '/static/hello.txt', 'X-Probe' => 'quick');
ok t_cmp($res->content, "Hello, static\n", 'quick answer body');
sleep 1; # log lines are written when the request is done
open my $el, '<', "$vars->{t_logs}/error_log" or die $!;
my $quick = grep { /CGIPLUS1503: quick: \S+\/static\/hello\.txt answered from memory/ } <$el>;
ok $quick > 0;
open my $al, '<', "$vars->{t_logs}/access_log" or die $!;
my @lines = grep { m{"GET /static/hello\.txt HTTP/1\.1" 200 14} } <$al>;
ok @lines > 0;
# the large file goes through the descriptor path
$res = req(GET => '/static/big.txt');
open $el, '<', "$vars->{t_logs}/error_log" or die $!;
ok scalar(grep { /CGIPLUS1503: quick: \S+\/big\.txt answered from its descriptor/ } <$el>) > 0;
