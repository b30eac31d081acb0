# Issue 20, hole 4: the status page is open to local clients (the shipped
# examples say Require local), and every script is one. A script that reads
# all of it (HTML, each pool's page, JSON, metrics) must find no
# CGIplusSetEnv value of any pool (names only) and no query string of the
# requests in flight, on the direct path or relayed; a page where the
# operator says CGIplusStatusShowQuery on shows the query strings, still no
# value. Before the fix the script read the password and both tokens.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use Time::HiRes qw(sleep);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget hstart hfinish status pool_of wait_for);

plan tests => 11;

my $vars = Apache::Test::config()->{vars};
my $secret = 'hunter2-status-secret';
my ($tokd, $tokr) = ('QTOKEN-direct-7f3a', 'QTOKEN-relayed-9c1e');

ok t_cmp(hget('/pool/statsec/app.pl')->{code}, 200, 'the pool with a secret answers (a warm worker)');
# Two requests in flight: one on the warm worker, claimed by the httpd
# child (the direct path), one relayed by the runner to a second worker.
my $d = hstart("/pool/statsec/app.pl?sleep=3&token=$tokd");
sleep 0.3;
my $r = hstart("/pool/statsecr/app.pl?sleep=3&token=$tokr");
my $busy = wait_for(sub { my $p = pool_of(status(), 'statsec'); $p && 2 == grep { $_->{uri} } @{ $p->{workers} } }, 3);
ok t_cmp($busy ? 1 : 0, 1, 'both requests are in flight');

sub peek {
    my ($path) = @_;
    my $res = hget("/pool/statpeek/statuspeek.pl?port=$vars->{port}&path=$path&secret=$secret"
                   . "&token=QTOKEN-&busy=/pool/statsec");
    my %f = $res->{body} =~ /^(\w+)=(.*)$/mg;
    return ($res->{code}, \%f);
}
my ($code, $f) = peek('/cgiplus-status-default');
ok t_cmp($code, 200, 'the nosy script answers');
ok t_cmp($f->{pages} // '', qr/^(\d+) of \1$/, 'it read every page (HTML, JSON, metrics, each pool)');
ok t_cmp(($f->{busy} // 0) >= 2 ? 1 : 0, 1, "the busy workers' paths are listed ($f->{busy})");
ok t_cmp($f->{secret}, 0, 'no CGIplusSetEnv value on any page');
ok t_cmp(($f->{name} // 0) > 0 ? 1 : 0, 1, "the variable's name is there ($f->{name} times)");
ok t_cmp($f->{token}, 0, 'no query string of a request in flight (direct or relayed)');

# Where the operator turns the query strings on (the test server's page).
($code, $f) = peek('/cgiplus-status');
ok t_cmp(($f->{token} // 0) >= 2 ? 1 : 0, 1,
         "CGIplusStatusShowQuery on: both query strings shown ($f->{token})");
ok t_cmp($f->{secret}, 0, 'still no CGIplusSetEnv value');
my @done = map { hfinish($_)->{code} } $d, $r;
ok t_cmp("@done", '200 200', 'the busy requests end normally');
