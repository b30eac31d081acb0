# One pool per script: with a standalone runner (as in t/49), httpd's
# requests for a script the runner's file declares use the declared, warm
# pool, even when httpd's directory names settings of its own: the
# section's settings win as a whole (docs/RUNNER.md), and the runner says so
# once (2450). Before, httpd's settings made a twin pool that took all the
# traffic while the declared one idled.
use strict;
use lib "t/lib";
use FreePort qw(free_port);
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use IO::Socket::INET;
use lib 't/htdocs/pool/lib';
use PoolTest qw(wire_connect wire_status wait_for wire_key_file standalone_runner);
use PrivHttpd qw(httpd_start httpd_stop httpd_log);

plan tests => 10;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/onepool";
my $docroot = $vars->{documentroot};
my $script = "$docroot/pool/app.pl";
my $port = free_port();
remove_tree($dir);
make_path($dir);
chmod 0755, $dir;

standalone_runner($dir, 'runner', <<"CONF");
socket $dir/r.sock
user $vars->{user}
log_level debug
[defaults]
max_workers 2
[pool $script]
min_idle 2
max_workers 4
env POOL_declared=declared
CONF
wait_for(sub { -S "$dir/r.sock" }, 5);
my $st = wait_for(sub { my $st = wire_status(wire_connect("$dir/r.sock"));
                        @{ $st->{pools} } == 1 && @{ $st->{pools}[0]{workers} } == 2 ? $st : undef }, 5);
ok t_cmp($st ? 1 : 0, 1, 'the runner starts the declared pool warm (two workers)');
my $declared = $st ? $st->{pools}[0]{id} : 0;

# httpd connects to it; the script's directory names settings of its own.
my $h = httpd_start('onepool-httpd', $port, <<"CONF");
CGIplusRunnerSocket $dir/r.sock
CGIplusRunnerKeyFile @{[wire_key_file()]}
Alias /pool/ $docroot/pool/
<Directory $docroot/pool>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusMaxWorkers 3
    CGIplusSetEnv POOL_fromhttpd fromhttpd
</Directory>
CONF

my @bodies;
for (1 .. 6) {
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 5) or die;
    print $s "GET /pool/app.pl?x=$_ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    local $/;
    push @bodies, scalar <$s>;
}
ok t_cmp(scalar(grep { m{^HTTP/1\.1 200} } @bodies), 6, 'six requests through httpd served');
ok t_cmp(scalar(grep { /pool=declared / } @bodies), 6, "all by the declared pool's workers (its env)");
my %pids = map { /pid=(\d+)/ ? ($1 => 1) : () } @bodies;
my %warm = map { $_->{pid} => 1 } @{ $st->{pools}[0]{workers} };
ok t_cmp(scalar(grep { $warm{$_} } keys %pids) >= 1 ? 1 : 0, 1, 'a warm worker served them');

$st = wire_status(wire_connect("$dir/r.sock"));
ok t_cmp(join(' ', map { $_->{id} } @{ $st->{pools} }), $declared, 'no twin pool: one pool, the declared one');
ok t_cmp($st->{pools}[0]{settings}{max_workers}, 4, "the section's max_workers (4), not httpd's (3)");
ok t_cmp($st->{pools}[0]{counters}{requests}, 6, 'the declared pool counted the six requests');
# The direct path with a runner httpd did not start (CGIplusRunnerSocket):
# after a worker's first request and a child's first of the pool, requests
# are claimed in the runner's table; the runner hands few to workers itself.
my $more = 0;
for (1 .. 30) {
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 5) or die;
    print $s "GET /pool/app.pl?y=$_ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    local $/;
    $more += (scalar <$s>) =~ m{^HTTP/1\.1 200.*pool=declared }s ? 1 : 0;
}
ok t_cmp($more, 30, 'thirty more requests served by the declared pool');
my $log = do { local (@ARGV, $/) = ("$dir/runner.log"); <> } // '';
my $relayed = () = $log =~ /CGIPLUS2021: /g;
ok t_cmp($relayed <= 12 ? 1 : 0, 1, "the direct path took most of them ($relayed of 36 relayed)");
my $notes = () = $log =~ /CGIPLUS2450: pool #$declared of \S+app\.pl: the runner's \[pool\] section decides/g;
ok t_cmp($notes, 1, 'the runner says once that the section decides (2450)');

httpd_stop($h);
