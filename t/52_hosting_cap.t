# Shared hosting at CGIplusMaxWorkersTotal (docs/SCALING.md, "Many sites on
# one node"): the runner's cap is taken by idle workers of quiet sites, and
# a burst comes to one site. Its requests wait in the direct path's queue
# (its httpd child knows the pool); an idle worker of another site is
# stopped to make room for each new worker it needs, as for requests queued
# in the runner, rather than the site staying at the one worker it had
# until the others' idle timeout (5 minutes).
use strict;
use warnings FATAL => 'all';
use lib 't/lib';
use FreePort qw(free_port);
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use IO::Select;
use JSON::PP ();
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PrivHttpd qw(httpd_start);

plan tests => 5, need { 'needs php-cgi (Debian package php-cgi)' => -x '/usr/bin/php-cgi' };

my $n = 6;
my $port = free_port();
my $vars = Apache::Test::config()->{vars};
my $sites = "$vars->{t_logs}/hosting-cap-sites";
system('rm', '-rf', $sites);
mkdir $sites or die "$sites: $!";
chmod 0755, $sites;
# One httpd child: it learns s1's pool from its first request, and the
# burst's requests then wait in the table's queue.
my $conf = "StartServers 1\nServerLimit 1\nThreadsPerChild 16\nMinSpareThreads 1\n"
    . "MaxSpareThreads 16\nMaxRequestWorkers 16\nCGIplusMaxWorkersTotal 4\nCGIplusMaxWorkers 4\n"
    . "<Location /cgiplus-status>\n    SetHandler cgiplus-status\n</Location>\n";
for my $i (1 .. $n) {
    my $d = "$sites/s$i";
    mkdir $d;
    open my $f, '>', "$d/index.php" or die;
    print $f "<?php if (isset(\$_GET['slow'])) usleep(400000); echo 'site $i pid ', getmypid(), \"\\n\";\n";
    close $f;
    $conf .= "<VirtualHost 127.0.0.1:$port>\n    ServerName s$i.test\n    DocumentRoot $d\n"
        . "    <Directory $d>\n        Require all granted\n        CGIplusEngine php\n"
        . "    </Directory>\n</VirtualHost>\n";
}
httpd_start('hosting-cap', $port, $conf);

sub start {
    my ($host, $path) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 20) or die "connect: $!";
    print $s "GET $path HTTP/1.0\r\nHost: $host\r\n\r\n";
    return $s;
}
sub finish { my ($s) = @_; local $/; my $r = <$s> // ''; return ($r =~ m{^HTTP/\S+ (\d+)})[0] // 0 }
sub get { return finish(start(@_)) }
sub status { my $s = start('s1.test', '/cgiplus-status?json'); local $/; my $r = <$s> // '';
             return JSON::PP->new->decode(($r =~ /\r\n\r\n(.*)/s)[0] // '{}') }
sub pool { my ($st, $site) = @_; return (grep { ($_->{site} // '') =~ /^\Q$site\E\.test/ } @{ $st->{pools} })[0] }

# The quiet sites take the cap (4 workers), idle; then s1's first request
# (relayed: it makes the pool) gets a worker by stopping one of them.
my @codes = map { get("s$_.test", '/index.php') } 2 .. 5;
ok t_cmp("@codes", '200 200 200 200', 'four quiet sites answer, one worker each: the cap');
ok t_cmp(get('s1.test', '/index.php'), 200, 's1 answers');

# A burst of 4 slow requests on s1 (0.4 s each): one takes its worker, 3
# wait in the table's queue; each new worker for them stops an idle one of
# another site.
my $t0 = time;
my @s = map { start('s1.test', "/index.php?slow=$_") } 1 .. 4;
@codes = map { finish($_) } @s;
my $took = time - $t0;
ok t_cmp("@codes", '200 200 200 200', 'the burst is answered');
my $st = status();
my $p1 = pool($st, 's1');
ok t_cmp($p1 ? $p1->{counters}{max_active} : 0, 4,
         sprintf('s1 ran all 4 at once (the burst took %.2f s)', $took));
my $evicted = 0;
$evicted += pool($st, "s$_") ? pool($st, "s$_")->{counters}{deaths}{evicted} : 0 for 2 .. 5;
ok t_cmp($evicted >= 3 ? 1 : 0, 1, "idle workers of the quiet sites made room ($evicted evicted)");
