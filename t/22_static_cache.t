# The per-process cache: a file replaced or changed on disk is served fresh
# once the revalidation interval (300 ms in the test configuration) has
# passed, at once with Cache-Control: no-cache; a deleted file becomes a
# 404; the cache stays within its 8 entries (evictions are logged at trace1);
# large files (above CGIplusStaticMaxMemFile, 4K here) are served from their
# descriptor, with mmap and sendfile or without; precompressed variants are
# chosen by Accept-Encoding.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use File::Path qw(make_path remove_tree);
use HTTP::Request;
use IO::Uncompress::Gunzip qw(gunzip);
use LWP::UserAgent;
use Time::HiRes qw(sleep);

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{documentroot}/static";
my $ua = LWP::UserAgent->new(requests_redirectable => [], keep_alive => 1,
                             timeout => 10);

sub req {
    my ($path, @h) = @_;
    my $vhost = 'cgiplus_static';
    $vhost = 'cgiplus_static_nommap' if $path =~ s/^nommap://;
    Apache::TestRequest::module($vhost);
    return $ua->request(HTTP::Request->new(
        GET => Apache::TestRequest::resolve_url($path), [@h]));
}

sub put_file {
    my ($name, $content, $replace) = @_;
    my $tmp = $replace ? "$dir/.tmp-$$" : "$dir/$name";
    open my $fh, '>', $tmp or die "$tmp: $!";
    print $fh $content;
    close $fh;
    rename $tmp, "$dir/$name" or die $! if $replace;
}

sub slurp { open my $fh, '<', shift or die $!; local $/; return scalar <$fh> }

plan tests => 56;

# -- replaced (new inode), changed in place, forced, deleted; small file
put_file('fresh.txt', "one\n");
my $r = req('/static/fresh.txt');
ok t_cmp($r->content, "one\n", 'first version');
my $etag1 = $r->header('ETag');
put_file('fresh.txt', "second version\n", 1);
sleep 0.5;
$r = req('/static/fresh.txt');
ok t_cmp($r->content, "second version\n", 'replaced file served fresh after the interval');
ok t_cmp($r->header('Content-Length'), 15, 'with its new length');
ok $r->header('ETag') ne $etag1;
put_file('fresh.txt', "third version!\n");   # same inode, same size
sleep 0.5;
$r = req('/static/fresh.txt');
ok t_cmp($r->content, "third version!\n", 'changed in place: fresh after the interval');
put_file('fresh.txt', "fourth\n", 1);
$r = req('/static/fresh.txt', 'Cache-Control' => 'no-cache');
ok t_cmp($r->content, "fourth\n", 'Cache-Control: no-cache revalidates at once');
unlink "$dir/fresh.txt";
sleep 0.5;
$r = req('/static/fresh.txt');
ok t_cmp($r->code, 404, 'deleted file: 404 after the interval');
{
    my $log = slurp("$vars->{t_logs}/error_log");
    ok t_cmp($log, qr{CGIPLUS1520: \Q$dir\E/fresh\.txt changed on disk; dropping it from the cache},
             'each change seen is logged (1520, debug)');
    ok t_cmp($log, qr{CGIPLUS1510: File does not exist: \Q$dir\E/fresh\.txt}, 'the deleted file: 1510');
}

# -- the same for a large file (descriptor path), both vhosts
for my $v ('', 'nommap:') {
    my $a = join '', map { "A line $_ of version one\n" } 1 .. 400;
    my $b = join '', map { "B line $_ of the second version\n" } 1 .. 300;
    put_file('fresh-big.txt', $a, 1);
    $r = req("${v}/static/fresh-big.txt");
    ok t_cmp(length $r->content, length $a, "${v}large file: first version");
    ok $r->content eq $a;
    put_file('fresh-big.txt', $b, 1);
    sleep 0.5;
    $r = req("${v}/static/fresh-big.txt");
    ok t_cmp(length $r->content, length $b, "${v}large file replaced: fresh");
    ok $r->content eq $b;
    $r = req("${v}/static/fresh-big.txt", Range => 'bytes=10-19,100-109');
    ok t_cmp($r->code, 206, "${v}large file: multiple ranges");
    ok index($r->content, substr($b, 10, 10)) > 0 && index($r->content, substr($b, 100, 10)) > 0;
    unlink "$dir/fresh-big.txt";
}
# -- a large cached file written in place within the revalidation window
# (300 ms): each send checks its descriptor, so the file is served as it
# is now (cut, grown, emptied), never with the cached length.
for my $v ('', 'nommap:') {
    my $a = join '', map { sprintf "C line %05d of the in-place file\n", $_ } 1 .. 400;
    put_file('fresh-cut.txt', $a);
    $r = req("${v}/static/fresh-cut.txt");
    ok t_cmp(length $r->content, length $a, "${v}in place: first version, cached");
    truncate "$dir/fresh-cut.txt", 6000 or die $!;
    $r = req("${v}/static/fresh-cut.txt");
    ok t_cmp($r->header('Content-Length'), 6000, "${v}truncated within the window: its new length");
    ok t_cmp($r->content, substr($a, 0, 6000), "${v}and its bytes");
    open my $fh, '>>', "$dir/fresh-cut.txt" or die $!;
    print $fh 'D' x 9000;
    close $fh;
    $r = req("${v}/static/fresh-cut.txt");
    ok t_cmp($r->content, substr($a, 0, 6000) . ('D' x 9000), "${v}grown within the window: whole");
    put_file('fresh-cut.txt', 'E' x 5000);   # rewritten in place, other size
    $r = req("${v}/static/fresh-cut.txt");
    ok t_cmp($r->content, 'E' x 5000, "${v}rewritten within the window: the new bytes");
    truncate "$dir/fresh-cut.txt", 0 or die $!;
    $r = req("${v}/static/fresh-cut.txt");
    ok t_cmp($r->code . ' ' . ($r->header('Content-Length') // 'none') . ' ' . length($r->content),
             '200 0 0', "${v}emptied within the window: an empty file");
    unlink "$dir/fresh-cut.txt";
}
my $big = slurp("$dir/big.txt");
$r = req('nommap:/static/big.txt');
ok t_cmp($r->content, $big, 'EnableMMAP Off, EnableSendfile Off: whole large file');
$r = req('nommap:/static/big.txt', Range => 'bytes=24000-');
ok t_cmp($r->content, substr($big, 24000), 'and a range of it');
$r = req('/static/big.txt', Range => 'bytes=-100');
ok t_cmp($r->content, substr($big, -100), 'sendfile vhost: suffix range of the large file');

# -- eviction: 20 files through an 8-entry cache, all served right, twice
make_path("$dir/evict");
put_file("evict/f$_.txt", "file $_\n") for 1 .. 20;
my $bad = 0;
for my $round (1 .. 2) {
    for my $i (1 .. 20) {
        $bad++ unless req("/static/evict/f$i.txt")->content eq "file $i\n";
    }
}
ok t_cmp($bad, 0, '40 requests over 20 files through an 8-entry cache');
open my $el, '<', "$vars->{t_logs}/error_log" or die $!;
ok scalar(grep { /CGIPLUS1521: static cache full \((\d+) entries/ && $1 <= 8 } <$el>) > 0;
remove_tree("$dir/evict");

# -- precompressed variants
my $css = slurp("$dir/style.css");
my $br = slurp("$dir/style.css.br");
my $gz = slurp("$dir/style.css.gz");
$r = req('/static/style.css');
ok t_cmp($r->content, $css, 'no Accept-Encoding: the file itself');
ok t_cmp(scalar $r->header('Vary'), 'Accept-Encoding', 'with Vary');
ok !defined $r->header('Content-Encoding');
my $etag_id = $r->header('ETag');
$r = req('/static/style.css', 'Accept-Encoding' => 'gzip, deflate, br');
ok t_cmp($r->header('Content-Encoding'), 'br', 'br preferred');
ok t_cmp($r->content, $br, 'the .br bytes');
ok t_cmp($r->header('Content-Length'), length $br, 'its length');
ok t_cmp($r->header('Content-Type'), 'text/css', 'the type of style.css');
ok t_cmp(scalar $r->header('Vary'), 'Accept-Encoding', 'Vary');
my $etag_br = $r->header('ETag');
ok $etag_br ne $etag_id;
$r = req('/static/style.css', 'Accept-Encoding' => 'br', 'If-None-Match' => $etag_br);
ok t_cmp($r->code, 304, 'the variant revalidates with its own ETag');
$r = req('/static/style.css', 'Accept-Encoding' => 'gzip');
ok t_cmp($r->header('Content-Encoding'), 'gzip', 'gzip when only gzip');
my $plain;
gunzip(\($r->content) => \$plain);
ok t_cmp($plain, $css, 'which unzips to the file');
$r = req('/static/style.css', 'Accept-Encoding' => 'br;q=0.5, gzip');
ok t_cmp($r->header('Content-Encoding'), 'gzip', 'q-values decide');
$r = req('/static/style.css', 'Accept-Encoding' => 'gzip, br;q=0');
ok t_cmp($r->header('Content-Encoding'), 'gzip', 'q=0 refuses br');
$r = req('/static/style.css', 'Accept-Encoding' => 'identity');
ok !defined $r->header('Content-Encoding') && $r->content eq $css;
$r = req('/static/style.css', 'Accept-Encoding' => 'br', Range => 'bytes=0-9');
ok t_cmp($r->code, 206, 'a range of the variant');
ok t_cmp($r->content, substr($br, 0, 10), 'is a range of the .br file');
$r = req('/hstatic/style.css', 'Accept-Encoding' => 'br');
ok t_cmp($r->header('Content-Encoding'), 'br', 'handler phase too');
