# A GET travels the whole real path: httpd -> module -> runner -> C worker.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);
use lib 't/lib';
use MainLog qw(log_offset log_wait);

plan tests => 5;

my $off = log_offset();
my $r = GET '/c/hello';
ok t_cmp($r->code, 200, 'GET /c/hello answers 200');
# the suite logs at trace1 and more: the request's way, state by state
ok t_cmp(log_wait($off, qr{CGIPLUS1090: request (\d+) for (\S+/hello): start, read-body: NEW -> BODY\n(?s:.*)CGIPLUS1090: request \1 for \2: [^\n]*: STREAM -> DONE}), 1,
         'its states logged from NEW to DONE (1090, trace1)');
ok t_cmp($r->content, "Hello from CGIplus\n", 'body as the script wrote it');
ok t_cmp(scalar $r->header('Content-Type'), qr{^text/plain}, 'Content-Type from the script');

$r = GET '/c/no-such-script';
ok t_cmp($r->code, 404, 'a missing script is 404');
