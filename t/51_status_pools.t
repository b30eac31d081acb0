# The status page at 100 pools (a standalone runner declaring them, httpd in
# front): the runner renders it; the HTML front page is one table with one
# line per pool and a bounded size, one pool's workers on demand
# (?pool=ID); Prometheus series are labelled by script and mode only; the
# version is configure's.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use IO::Socket::INET;
use lib 't/htdocs/pool/lib';
use PoolTest qw(wire_connect wire_status wait_for wire_key_file standalone_runner);
use PrivHttpd qw(httpd_start httpd_stop);

plan tests => 14;

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $dir = "$vars->{t_logs}/status100";
my $port = $vars->{port} + 12;
my $n = 100;
remove_tree($dir);
make_path("$dir/s");
chmod 0755, $dir, "$dir/s";
my ($version) = do { local (@ARGV, $/) = ("$top/config.h"); <> } =~ /#define PACKAGE_VERSION "([^"]+)"/;

my $conf = "socket $dir/r.sock\nuser $vars->{user}\n";
for my $i (1 .. $n) {
    symlink "$vars->{documentroot}/pool/app.pl", "$dir/s/script_$i.pl" or die;
    $conf .= "[pool $dir/s/script_$i.pl]\nmax_workers 2\n";
}
standalone_runner($dir, 'runner', $conf);
wait_for(sub { -S "$dir/r.sock" }, 5);
my $st = wire_status(wire_connect("$dir/r.sock"));
ok t_cmp(scalar @{ $st->{pools} }, $n, "the runner holds $n pools");

my $h = httpd_start('status100-httpd', $port, <<"CONF");
CGIplusRunnerSocket $dir/r.sock
CGIplusRunnerKeyFile @{[wire_key_file()]}
<Location /cgiplus-status>
    SetHandler cgiplus-status
</Location>
CONF
sub get {
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 5) or die;
    print $s "GET $_[0] HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    local $/;
    my ($head, $body) = split /\r\n\r\n/, scalar(<$s>), 2;
    return ($head, $body // '');
}

my ($head, $html) = get('/cgiplus-status');
ok t_cmp($head, qr{^HTTP/1\.1 200.*\r\nContent-Type: text/html; charset=utf-8}s, 'HTML, 200');
ok t_cmp($html, qr{<h1>cgiplus-runner \Q$version\E</h1>}, "the version ($version) from configure");
my @tables = $html =~ /<table>/g;
ok t_cmp(scalar @tables, 1, 'one table of pools');
my @rows = $html =~ m{^<tr><td><a href="\?pool=\d+">\d+</a></td><td>\Q$dir\E/s/script_\d+\.pl</td>.*</tr>$}mg;
ok t_cmp(scalar @rows, $n, 'one line per pool, each a row of the table');
my %seen = map { m{script_(\d+)\.pl} ? ($1 => 1) : () } @rows;
ok t_cmp(scalar keys %seen, $n, 'every pool once');
ok t_cmp($html !~ /pid=|<th>pid<\/th>/ ? 1 : 0, 1, 'no workers on the front page');
my $limit = 4096 + $n * (400 + length "$dir/s/script_100.pl");
ok t_cmp(length($html) <= $limit ? 1 : 0, 1, 'bounded size: ' . length($html) . " bytes (at most $limit)");

my $id = $st->{pools}[41]{id};
my ($h2, $one) = get("/cgiplus-status?pool=$id");
ok t_cmp($one, qr{<h2>Pool $id: \Q$st->{pools}[41]{script}\E \(cgiplus\)</h2>}, 'one pool on demand (?pool=ID)');
ok t_cmp($one, qr{<h3>Workers</h3>}, 'with its workers table');
my ($h3) = get('/cgiplus-status?pool=x');
ok t_cmp($h3, qr{^HTTP/1\.1 404}, 'a query it does not know: 404');

my ($h4, $m) = get('/cgiplus-status?metrics');
my @req = $m =~ /^cgiplus_pool_requests_total\{script="[^"]+",mode="cgiplus"\} 0$/mg;
ok t_cmp(scalar @req, $n, 'metrics: one requests_total series per script, labelled script and mode');
ok t_cmp($m =~ /\b(pool|pid)="/ ? 1 : 0, 0, 'no pool id or pid labels');
ok t_cmp($m, qr/^cgiplus_runner_info\{version="\Q$version\E"\} 1$/m, 'metrics: the version');

httpd_stop($h);
