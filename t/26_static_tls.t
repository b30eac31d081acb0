# The fast path under TLS (mod_ssl reads the buckets): a prefix defined at
# server level is inherited by the TLS virtual host; small (memory) and
# large (descriptor, read through mmap by mod_ssl) files arrive intact,
# ranges included.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use LWP::UserAgent;

plan tests => 6;

my $cfg = Apache::Test::config();
my $dir = "$cfg->{vars}{documentroot}/static";
my $base = "https://$cfg->{vars}{servername}:" . $cfg->port('cgiplus_ssl');
my $ua = LWP::UserAgent->new(ssl_opts => { verify_hostname => 0, SSL_verify_mode => 0 },
                             keep_alive => 1);
sub slurp { open my $fh, '<', shift or die $!; local $/; return scalar <$fh> }
my $big = slurp("$dir/big.txt");

my $r = $ua->get("$base/static-main/hello.txt");
ok t_cmp($r->code, 200, 'TLS: small file');
ok t_cmp($r->content, "Hello, static\n", 'TLS: its bytes');
$r = $ua->get("$base/static-main/big.txt");
ok t_cmp($r->code, 200, 'TLS: large file');
ok $r->content eq $big;
$r = $ua->get("$base/static-main/big.txt", Range => 'bytes=100-199,24700-');
ok t_cmp($r->code, 206, 'TLS: multiple ranges of the large file');
ok index($r->content, substr($big, 100, 100)) > 0 && index($r->content, substr($big, 24700)) > 0;
