# POST bodies reach the persistent script intact, small and 1 MiB.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(POST);
use Digest::MD5 qw(md5_hex);

plan tests => 8;

my $r = POST '/c/echo', content => 'name=value&x=1';
ok t_cmp($r->code, 200, 'small POST answers 200');
ok t_cmp($r->content, 'name=value&x=1', 'small body echoed');
ok t_cmp(scalar $r->header('X-Worker-Pid'), qr/^\d+$/, 'worker pid header');

srand(42);
my $big = join '', map { chr(int(rand(256))) } 1 .. 1024 * 1024;
$r = POST '/c/echo', content => $big,
    'Content-Type' => 'application/octet-stream';
ok t_cmp($r->code, 200, '1 MiB POST answers 200');
ok t_cmp(length($r->content), length($big), '1 MiB echoed: same length');
ok t_cmp(md5_hex($r->content), md5_hex($big), '1 MiB echoed byte-exact');

# The worker that took 1 MiB still serves a small request correctly after it.
$r = POST '/c/echo', content => 'after';
ok t_cmp($r->code, 200, 'next POST answers 200');
ok t_cmp($r->content, 'after', 'next POST body intact');
