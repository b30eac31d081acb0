# The same four examples in C, Python, Perl and sh, each through the real
# httpd, runner and library: persistent, then as plain CGI.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET POST);
use Digest::MD5 qw(md5_hex);

my %ext = (c => '', python => '.py', perl => '.pl', sh => '.sh');
my @langs = qw(c python perl sh);
plan tests => 16 * @langs;

srand(7);
my $bin = join '', map { chr(int(rand(256))) } 1 .. 100_000;

for my $lang (@langs) {
    my $x = $ext{$lang};
    # persistent
    my $r = GET "/$lang/hello$x";
    ok t_cmp($r->code, 200, "$lang hello status");
    ok t_cmp($r->content, "Hello from CGIplus\n", "$lang hello body");

    my @c;
    for (1 .. 3) {
        $r = GET "/$lang/counter$x";
        push @c, $r->content =~ /^count=(\d+) pid=(\d+)$/m ? [$1, $2] : [-1, -1];
    }
    ok t_cmp("$c[1][0] $c[2][0]", ($c[0][0] + 1) . ' ' . ($c[0][0] + 2),
             "$lang counter rises by one per request");
    ok t_cmp("$c[1][1] $c[2][1]", "$c[0][1] $c[0][1]", "$lang counter: one pid");

    $r = POST "/$lang/echo$x", content => 'a=1&b=2';
    ok t_cmp($r->code, 200, "$lang echo status");
    ok t_cmp($r->content, 'a=1&b=2', "$lang small POST echoed");
    $r = POST "/$lang/echo$x", content => $bin,
        'Content-Type' => 'application/octet-stream';
    ok t_cmp(md5_hex($r->content), md5_hex($bin), "$lang 100 kB binary POST echoed");

    $r = GET "/$lang/env$x?q=1&r=two";
    ok t_cmp($r->content, qr/^QUERY_STRING=q=1&r=two$/m, "$lang env: QUERY_STRING");
    ok t_cmp($r->content, qr/^REQUEST_METHOD=GET$/m, "$lang env: REQUEST_METHOD");
    ok t_cmp(GET("/$lang/env$x")->content, qr/^QUERY_STRING=$/m,
             "$lang env: the previous request's QUERY_STRING is gone");

    # plain CGI: same script, one process per request
    $r = GET "/cgi-$lang/hello$x";
    ok t_cmp($r->code, 200, "$lang plain CGI hello status");
    ok t_cmp($r->content, "Hello from CGIplus\n", "$lang plain CGI hello body");
    my ($a1, $p1) = GET("/cgi-$lang/counter$x")->content =~ /^count=(\d+) pid=(\d+)$/m;
    my ($a2, $p2) = GET("/cgi-$lang/counter$x")->content =~ /^count=(\d+) pid=(\d+)$/m;
    ok t_cmp(($a1 // -1) . ' ' . ($a2 // -1), '1 1', "$lang plain CGI counter stays at 1");
    ok(defined $p1 && defined $p2 && $p1 != $p2);
    $r = POST "/cgi-$lang/echo$x", content => $bin,
        'Content-Type' => 'application/octet-stream';
    ok t_cmp(md5_hex($r->content), md5_hex($bin), "$lang plain CGI binary POST echoed");
    ok t_cmp(GET("/cgi-$lang/env$x?z=9")->content, qr/^QUERY_STRING=z=9$/m,
             "$lang plain CGI env");
}
