# A CGI.pm script under the Perl library: CGI.pm's parsed query must be the
# current request's on every request of the persistent worker.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET POST);

plan tests => 10;

my $u = '/scripts/cgipm.pl';
my $r = GET "$u?a=1&b=2&b=3";
ok t_cmp($r->code, 200, 'GET with CGI.pm');
ok t_cmp($r->content, qr/^params=a:1,b:2\|3$/m, 'GET params');
my ($pid) = $r->content =~ /^pid=(\d+)$/m;

$r = POST "$u?u=9", content => 'x=hello+world&y=%21';
ok t_cmp($r->content, qr/^method=POST$/m, 'POST method');
ok t_cmp($r->content, qr/^params=x:hello world,y:!$/m, 'POST body params, not the last GET');
ok t_cmp($r->content, qr/^url_param=9$/m, 'url_param from the query string');

$r = GET $u;
ok t_cmp($r->content, qr/^params=$/m, 'no params left over from earlier requests');
ok t_cmp($r->content, qr/^url_param=$/m, 'no url_param left over');

$r = GET "$u?c=4";
ok t_cmp($r->content, qr/^params=c:4$/m, 'the next GET sees only its own query');
ok t_cmp(($r->content =~ /^pid=(\d+)$/m)[0], $pid, 'one persistent worker served them all');
ok t_cmp(scalar $r->header('X-Served'), 4, 'its own request counter says 4');
