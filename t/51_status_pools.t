# The status page at 100 pools (a standalone runner declaring them, httpd in
# front): the runner renders it; the HTML front page is one table with one
# line per pool and a bounded size, one pool's workers on demand
# (?pool=ID); Prometheus series are labelled by script and mode only; the
# version is configure's.
use strict;
use lib "t/lib";
use FreePort qw(free_port);
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use IO::Socket::INET;
use lib 't/htdocs/pool/lib';
use PoolTest qw(wire_connect wire_request wire_frames wire_status wait_for wire_key_file standalone_runner);
use PrivHttpd qw(httpd_start httpd_stop);

plan tests => 22;

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $dir = "$vars->{t_logs}/status100";
my $port = free_port();
my $n = 100;
remove_tree($dir);
make_path("$dir/s");
chmod 0755, $dir, "$dir/s";
my ($version) = do { local (@ARGV, $/) = ("$top/config.h"); <> } =~ /#define PACKAGE_VERSION "([^"]+)"/;

my $conf = "socket $dir/r.sock\nuser $vars->{user}\nslow_request 300ms\n";
for my $i (1 .. $n) {
    symlink "$vars->{documentroot}/pool/app.pl", "$dir/s/script_$i.pl" or die;
    $conf .= "[pool $dir/s/script_$i.pl]\nmax_workers 2\n";
}
my $runner = standalone_runner($dir, 'runner', $conf);
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

# The exposition follows Prometheus' text format and naming conventions:
# each family has one HELP and one TYPE before its samples; names are
# cgiplus_ snake case, counters and only counters end in _total, base
# units (seconds); no series twice; label values quoted.
sub exposition_problems {
    my ($text) = @_;
    my (%type, %help, %series, @bad);
    for my $line (split /\n/, $text) {
        if ($line =~ /^# HELP (\S+) \S/) { push @bad, "HELP twice: $1" if $help{$1}++; next }
        if ($line =~ /^# TYPE (\S+) (counter|gauge)$/) {
            push @bad, "TYPE twice: $1" if exists $type{$1};
            push @bad, "TYPE after samples: $1" if grep { /^\Q$1\E\{/ || $_ eq $1 } keys %series;
            $type{$1} = $2;
            next;
        }
        my ($name, $labels, $value) = $line =~ /^([a-z_:][a-z0-9_:]*)(\{[^}]*\})? (\S+)$/
            or do { push @bad, "not a sample: $line"; next };
        push @bad, "no TYPE/HELP before $name" unless $type{$name} && $help{$name};
        push @bad, "not cgiplus_: $name" unless $name =~ /^cgiplus_[a-z0-9_]+$/ && $name !~ /__/;
        my $t = $type{$name} // '';
        push @bad, "$t $name" if ($t eq 'counter') != ($name =~ /_total$/);
        push @bad, "unit: $name" if $name =~ /_(ms|milliseconds|bytes_kb)(_|$)/;
        push @bad, "value: $line" unless $value =~ /^-?\d+(\.\d+)?(e[+-]?\d+)?$/;
        my $l = $labels // '';
        push @bad, "labels: $line" unless $l eq '' || $l =~ /^\{[a-z_]+="(?:[^"\\]|\\.)*"(?:,[a-z_]+="(?:[^"\\]|\\.)*")*\}$/;
        push @bad, "twice: $name$l" if $series{"$name$l"}++;
    }
    return @bad;
}
my @bad = exposition_problems($m);
ok t_cmp("@bad[0 .. ($#bad < 4 ? $#bad : 4)]", '', 'the metrics follow the text format and the naming conventions');

# Slow requests (php-fpm's "slow requests" and slowlog): a request longer
# than slow_request (300ms here) is counted on the page and in the metrics,
# and logged once (2016); a quick one is not.
my $ws = wire_connect("$dir/r.sock");
my $slow_script = "$dir/s/script_2.pl";
my @ends;
for my $q ('sleep=0.6', 'x=1') {
    wire_request($ws, scalar(@ends) + 1, [script => $slow_script, uri => "/s2?$q", mode => 'cgiplus'],
                 [REQUEST_METHOD => 'GET', QUERY_STRING => $q, SCRIPT_NAME => '/s2']);
    my @f = wire_frames($ws, 100, 10);
    push @ends, @f ? $f[-1]{outcome} // -1 : -1;
}
ok t_cmp("@ends", '0 0', 'a slow and a quick request served');
my ($sp) = grep { $_->{script} eq $slow_script } @{ wire_status(wire_connect("$dir/r.sock"))->{pools} };
ok t_cmp($sp ? $sp->{counters}{slow} : -1, 1, 'the pool counts one slow request');
my (undef, $ms) = get('/cgiplus-status?metrics');
ok t_cmp($ms, qr/^cgiplus_pool_slow_requests_total\{script="\Q$slow_script\E",mode="cgiplus"\} 1$/m,
         'metrics: slow_requests_total 1');
my $rlog = wait_for(sub { my $t = do { local (@ARGV, $/) = ("$dir/runner.log"); <> } // ''; $t =~ /CGIPLUS2016/ ? $t : '' }, 5) || '';
my @slowlog = $rlog =~ /CGIPLUS2016: slow request \d+ \(([^)]*)\) of \Q$slow_script\E: (\d+\.\d) s on worker pid \d+ \(slow_request 0\.3 s\), ended ok/g;
ok t_cmp(@slowlog == 2 && $slowlog[0] eq '/s2?sleep=0.6' && $slowlog[1] >= 0.6 && $slowlog[1] < 3 ? 1 : "@slowlog", 1,
         "logged once, with its URI, time and worker (2016: @slowlog)");

# Stable series: after a reload (SIGHUP) that changes one script's
# settings, so that its pool retires and a new one (a new id) takes over,
# the same series exist, with the same labels.
sub series_keys { my %k = map { /^([^ #][^ ]*) / ? ($1 => 1) : () } split /\n/, $_[0]; return join "\n", sort keys %k }
my $before = series_keys($m);
my $cf = do { local (@ARGV, $/) = ("$dir/runner.conf"); <> };
$cf =~ s{(\[pool \Q$dir\E/s/script_1\.pl\]\nmax_workers) 2}{$1 3} or die "no script_1 section";
open my $wf, '>', "$dir/runner.conf" or die;
print $wf $cf;
close $wf;
my $old_id = (grep { $_->{script} eq "$dir/s/script_1.pl" } @{ $st->{pools} })[0]{id};
kill 'HUP', $runner;
my $new = wait_for(sub { my $s = wire_status(wire_connect("$dir/r.sock"));
                         my ($p) = grep { $_->{script} eq "$dir/s/script_1.pl" && !$_->{retired} } @{ $s->{pools} };
                         $p && $p->{id} != $old_id ? $p : undef }, 5);
ok t_cmp($new ? 1 : 0, 1, 'the reload gave script_1 a new pool (a new id)');
my (undef, $m2) = get('/cgiplus-status?metrics');
ok t_cmp(series_keys($m2), $before, 'the same series, with the same labels, after the reload');
ok t_cmp($m2, qr/^cgiplus_pool_workers_limit\{script="\Q$dir\E\/s\/script_1\.pl",mode="cgiplus"\} 3$/m,
         "and the series carry the new pool's numbers");

httpd_stop($h);
