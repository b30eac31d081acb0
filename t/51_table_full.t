# The direct path's shared table is bounded (include/cgp_table.h: 256
# pools, 16384 worker slots, 131072 waiter entries). A pool that finds no
# room is logged (2501) and served through the runner, and the others keep
# their place. A standalone runner declares 33 pools of CGIplusQueueDepth
# 2048: each takes a ring of 4096 waiter entries, so 32 fill the table.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use POSIX ();
use lib 't/htdocs/pool/lib';
use PoolTest qw(wire_connect wire_request wire_frames wire_status wait_for standalone_runner);

plan tests => 8;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/tablefull";
my $n = 33;
remove_tree($dir);
make_path("$dir/s");
chmod 0755, $dir, "$dir/s";

my $conf = "socket $dir/r.sock\nuser $vars->{user}\n";
for my $i (1 .. $n) {
    symlink "$vars->{documentroot}/pool/app.pl", "$dir/s/script_$i.pl" or die;
    $conf .= "[pool $dir/s/script_$i.pl]\nmax_workers 1\nqueue_depth 2048\n";
}
my $runner = standalone_runner($dir, 'runner', $conf);
wait_for(sub { -S "$dir/r.sock" }, 5);
my $st = wire_status(wire_connect("$dir/r.sock"));
ok t_cmp(scalar @{ $st->{pools} }, $n, "the runner holds $n pools");

my $log = do { local (@ARGV, $/) = ("$dir/runner.log"); <> } // '';
my @full = $log =~ /CGIPLUS2501: pool #\d+ of (\S+): the direct path's table is full \(256 pools, 16384 workers, 131072 waiting requests\); its requests go through the runner/g;
ok t_cmp("@full", "$dir/s/script_$n.pl", 'the last pool finds no room, and says so (2501)');

# The status page's direct flag: the 32 in the table, the last one not
# (JSON, and the pool's HTML page).
my %direct = map { $_->{script} => $_->{direct} ? 1 : 0 } @{ $st->{pools} };
ok t_cmp(scalar(grep { $direct{"$dir/s/script_$_.pl"} } 1 .. $n - 1), $n - 1,
         'the first 32 pools are on the direct path');
ok t_cmp($direct{"$dir/s/script_$n.pl"}, 0, 'the last one is not');
my %id = map { $_->{script} => $_->{id} } @{ $st->{pools} };
my $c = wire_connect("$dir/r.sock");
ok t_cmp(wire_status($c, format => 'html', pool => $id{"$dir/s/script_$n.pl"}),
         qr/crash-loop failures 0; every request through the runner \(not in the direct path's table\)\./,
         "its HTML page says so");
ok t_cmp(wire_status($c, format => 'html', pool => $id{"$dir/s/script_1.pl"}),
         qr/crash-loop failures 0; on the direct path\./, "and the first pool's that it is on it");

# It still serves, through the runner.
my $s = wire_connect("$dir/r.sock");
wire_request($s, 1, [script => "$dir/s/script_$n.pl", uri => '/full', mode => 'cgiplus'],
             [REQUEST_METHOD => 'GET', QUERY_STRING => '', CONTENT_LENGTH => 0]);
my @f = wire_frames($s, 10, 10);
ok t_cmp(@f ? $f[-1]{outcome} // -1 : -1, 0, 'and the last pool serves its request through the runner');

# A request still queued when the runner stops ends overloaded, END's
# detail ESHUTDOWN (httpd's 1061 says the runner is stopping).
my $release = "$dir/release";
my $h = wire_connect("$dir/r.sock");
wire_request($h, 2, [script => "$dir/s/script_1.pl", uri => '/hold', mode => 'cgiplus'],
             [REQUEST_METHOD => 'GET', QUERY_STRING => "hold=$release", CONTENT_LENGTH => 0]);
sub pool1 { (grep { $_->{id} == $id{"$dir/s/script_1.pl"} } @{ wire_status(wire_connect("$dir/r.sock"))->{pools} })[0] }
wait_for(sub { grep { $_->{state} eq 'busy' } @{ pool1()->{workers} } }, 10);
my $q = wire_connect("$dir/r.sock");
wire_request($q, 3, [script => "$dir/s/script_1.pl", uri => '/queued', mode => 'cgiplus'],
             [REQUEST_METHOD => 'GET', QUERY_STRING => '', CONTENT_LENGTH => 0]);
wait_for(sub { pool1()->{queue}{depth} == 1 }, 10);
kill 'TERM', $runner;
my @qf = wire_frames($q, 10, 5);
ok t_cmp(@qf ? ($qf[-1]{outcome} // -1) . ' ' . ($qf[-1]{detail} // -1) : '', '1 ' . POSIX::ESHUTDOWN(),
         'a request queued when the runner stops ends overloaded, detail ESHUTDOWN');
open my $rf, '>', $release or die; close $rf; # the held one ends; the runner exits
