# A GET travels the whole real path: httpd -> module -> runner -> C worker.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);

plan tests => 4;

my $r = GET '/c/hello';
ok t_cmp($r->code, 200, 'GET /c/hello answers 200');
ok t_cmp($r->content, "Hello from CGIplus\n", 'body as the script wrote it');
ok t_cmp(scalar $r->header('Content-Type'), qr{^text/plain}, 'Content-Type from the script');

$r = GET '/c/no-such-script';
ok t_cmp($r->code, 404, 'a missing script is 404');
