# POST bodies reach the persistent script intact, small and 1 MiB.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(POST);
use Digest::MD5 qw(md5_hex);
use lib 't/lib';
use MainLog qw(log_offset log_wait);

plan tests => 13;

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

# A relayed script that answers without reading its body: the runner
# discards what it left in its stdin (2018, debug), so the next request on
# the same worker reads its own body, not the rest of this one.
my $off = log_offset();
my $left = 'L' x 32768;
$r = POST '/pool/unread/app.pl?lines=1&after=0.3', content => $left;
ok t_cmp($r->code, 200, 'a POST whose body the script leaves unread answers 200');
ok t_cmp($r->content, qr/^pid=(\d+) .*\nline 1\n\z/s, 'with the whole response');
my ($upid) = $r->content =~ /^pid=(\d+)/;
$r = POST '/pool/unread/app.pl?body', content => 'own-body';
ok t_cmp($r->content, qr/^cl=8 got=8 sum=\Q${\ unpack('%32C*', 'own-body')}\E$/m,
         'the next request reads its own body only');
ok t_cmp(($r->content =~ /^pid=(\d+)/)[0] // 0, $upid, 'on the same worker');
ok t_cmp(log_wait($off, qr/CGIPLUS2018: worker pid $upid of \S+app\.pl left 32768 body bytes unread; discarded/) ? 1 : 0, 1,
         'the runner logged the bytes it discarded (2018)');
