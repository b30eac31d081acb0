# A PHP script whose client leaves, under CGIplusEngine php (direct path and
# relayed) as under php-fpm behind mod_proxy_fcgi (Debian's set-up, the
# reference, a private php-fpm on a UNIX socket in the test's directory):
# PHP learns it at its next write, ends the script and runs its shutdown
# functions (connection_aborted() 1); with ignore_user_abort(true) the
# script runs to its end first (WordPress's wp-cron, mail sent after the
# page). Before, php-cgi never learnt it (ABORT_REQUEST, which it ignores,
# and its output read on to its end, or killed 5 s later: 2504, 2084), so
# its shutdown functions ran as for a client still there. The worker serves
# again afterwards, the same process.
#
# Each request is counted once on the status page: one whose client left
# as aborted, not also as served when its worker reaches its end (the
# relayed path counted it both ways). And under one worker, requests
# queued behind a busy one (WordPress's installer asks its own site for a
# page while its request holds the only php-cgi, its curl giving up after
# 5 s): one whose client resets its connection leaves the queue and never
# runs; one whose client closes (a FIN, which a half-closed client that
# still waits sends too) runs once, ends at its first write, and is
# counted aborted only: direct (in the table's queue, one httpd child),
# relayed, and under CGIplusFastCGIConnection per-request.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use IO::Socket::INET;
use Socket qw(SOL_SOCKET SO_LINGER);
use JSON::PP ();
use lib 't/lib', 't/htdocs/apps';
use RawHTTP qw(leave_early);
use PrivateHttpd qw(private_dir private_log);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use Marks qw(wait_marks marks_of);

my @sides = qw(direct relayed fpm);
my @qsides = qw(direct relayed perreq);
plan tests => 2 + 4 * @sides + 2 + 2 + 8 * @qsides, need php_need();

my $dir = private_dir('phpabort');
my ($rport, $fport, $port, $pport) = free_ports(4);
my $app = "$dir/app";
my $marks = "$dir/marks";
mkdir $_, 0777 for $app, $marks;
chmod 0777, $marks;
# 20 lines of 8 KiB, 0.1 s apart: 2 s unless it stops early.
write_file("$app/long.php", <<'PHP', 0644);
<?php
$tag = $_GET['tag'];
$file = getenv('MARKS') ?: __DIR__ . '/../marks';
register_shutdown_function(function () use ($tag, $file) {
    file_put_contents("$file/$tag", 'shutdown aborted=' . connection_aborted() . "\n", FILE_APPEND);
});
if (isset($_GET['ignore']))
    ignore_user_abort(true);
for ($i = 0; $i < 20; $i++) {
    echo str_repeat('x', 8191), "\n";
    flush();
    usleep(100000);
}
file_put_contents("$file/$tag", "finished\n", FILE_APPEND);
PHP
write_file("$app/pid.php", "<?php echo getmypid();\n", 0644);
# holds its worker until the test creates release-TAG (30 s at most)
write_file("$app/hold.php", <<'PHP', 0644);
<?php
$tag = $_GET['tag'];
$file = getenv('MARKS') ?: __DIR__ . '/../marks';
file_put_contents("$file/$tag", "started\n", FILE_APPEND);
for ($i = 0; $i < 300 && !file_exists("$file/release-$tag"); $i++)
    usleep(100000);
echo "held\n";
PHP

my $fpm = php_fpm($dir, 1);

php_httpd($dir, $port, [$rport, $fport, $pport], [], <<"CONF", 'a private httpd: a php pool, direct and relayed, and php-fpm');
# one httpd child: once it knows a pool, its requests wait in the table
StartServers 1
ServerLimit 1
MinSpareThreads 1
MaxSpareThreads 25
MaxRequestWorkers 25
<Location /cgiplus-status>
    SetHandler cgiplus-status
</Location>
Alias /app/ $app/
<Directory $app>
    Require all granted
</Directory>
<VirtualHost 127.0.0.1:$port>
    <Directory $app>
        CGIplusEngine php
        CGIplusMaxWorkers 1
    </Directory>
</VirtualHost>
<VirtualHost 127.0.0.1:$rport>
    <Directory $app>
        CGIplusEngine php
        CGIplusMaxWorkers 1
        CGIplusDirect off
    </Directory>
</VirtualHost>
<VirtualHost 127.0.0.1:$pport>
    <Directory $app>
        CGIplusEngine php
        CGIplusMaxWorkers 1
        CGIplusFastCGIConnection per-request
    </Directory>
</VirtualHost>
<VirtualHost 127.0.0.1:$fport>
    <FilesMatch ".+\\.php\$">
        SetHandler "proxy:unix:$dir/fpm.sock|fcgi://localhost"
    </FilesMatch>
</VirtualHost>
CONF

my %port = (direct => $port, relayed => $rport, fpm => $fport, perreq => $pport);

# The php pool of a side on the status page.
sub pool_of {
    my ($side) = @_;
    my (undef, undef, $j) = curl("http://127.0.0.1:$port/cgiplus-status?json");
    my $st = eval { JSON::PP::decode_json($j) } // {};
    my ($p) = grep { ($_->{script} // '') eq '/usr/bin/php-cgi' && !$_->{retired} &&
                     ($_->{site} // '') =~ /:$port{$side}\b/ } @{ $st->{pools} // [] };
    return $p // { counters => { errors => {} }, queue => {}, workers => [], scripts => [] };
}
# Its counts: requests, served, aborted, the other errors' sum.
sub counts {
    my ($p) = @_;
    my $c = $p->{counters};
    my $other = 0;
    $other += $c->{errors}{$_} for grep { $_ ne 'aborted' } keys %{ $c->{errors} };
    return join ' ', map { $_ // '-' } $c->{requests}, $c->{served}, $c->{errors}{aborted}, $other;
}
sub script_runs {
    my ($p, $name) = @_;
    my ($s) = grep { $_->{script} eq "$app/$name" } @{ $p->{scripts} // [] };
    return $s ? $s->{requests} : 0;
}
sub wait_until {
    my ($cond, $secs) = @_;
    my $t = time + $secs;
    sleep 0.05 while time < $t && !$cond->();
    return $cond->() ? 1 : 0;
}

for my $side (@sides) {
    my (undef, undef, $pid0) = curl("http://127.0.0.1:$port{$side}/app/pid.php");
    ok t_cmp(leave_early($port{$side}, "/app/long.php?tag=$side"), 1, "$side: the client read the first lines and left");
    ok t_cmp(wait_marks($marks, $side, qr/shutdown/), "shutdown aborted=1\n",
             "$side: the script ended at its next write, its shutdown function ran, connection_aborted() 1");
    leave_early($port{$side}, "/app/long.php?tag=$side-ignore&ignore=1");
    ok t_cmp(wait_marks($marks, "$side-ignore", qr/shutdown/), "finished\nshutdown aborted=1\n",
             "$side: with ignore_user_abort(true) it ran to its end, then its shutdown function");
    my (undef, undef, $pid1) = curl("http://127.0.0.1:$port{$side}/app/pid.php");
    ok t_cmp($pid1, $pid0, "$side: the same PHP process serves the next request");
}
# pid.php twice, long.php twice (its client gone): each counted once,
# when the worker had ended both (pid.php after them, the same process)
for my $side (qw(direct relayed)) {
    ok t_cmp(counts(pool_of($side)), '4 2 2 0', "$side: 4 requests: 2 served, 2 aborted (not served too)");
}

# ---- Queued behind the only worker, its client gone.
sub send_get {
    my ($side, $path) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port{$side}", Timeout => 10) or die "connect: $!";
    $s->autoflush(1);
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    return $s;
}
for my $side (@qsides) {
    curl("http://127.0.0.1:$port{$side}/app/pid.php"); # its worker is up, its pool known
    my $before = pool_of($side);
    my $hold = send_get($side, "/app/hold.php?tag=q$side");
    ok t_cmp(wait_marks($marks, "q$side", qr/started/), "started\n", "$side: hold.php holds the only worker");
    my $reset = send_get($side, "/app/long.php?tag=q$side-reset");
    my $fin = send_get($side, "/app/long.php?tag=q$side-fin");
    ok t_cmp(wait_until(sub { (pool_of($side)->{queue}{depth} // 0) == 2 }, 10), 1,
             "$side: two requests queued behind it");
    my $off = length private_log($dir);
    setsockopt($reset, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0)) or die "SO_LINGER: $!";
    close $reset;
    # the table's queue on the direct path (one httpd child, which knows
    # the pool), the runner's relayed
    my $left = $side eq 'relayed' ? qr/CGIPLUS1077: client connection reset before the response of \S+long\.php began/
                                  : qr/CGIPLUS1730: client connection reset while the request for \S+long\.php waited for a worker/;
    ok t_cmp(wait_until(sub { substr(private_log($dir), $off) =~ $left &&
                              (pool_of($side)->{queue}{depth} // 0) == 1 }, 10), 1,
             "$side: the request whose client reset its connection left the queue (" . ($side eq 'relayed' ? 1077 : 1730) . ')');
    close $fin; # a FIN: as a half-closed client's, so it stays queued
    sleep 0.5;  # (the queue's look at its client: every 0.2 s)
    write_file("$marks/release-q$side", '', 0644);
    my $r = do { local $/; <$hold> } // '';
    close $hold;
    ok t_cmp($r =~ m{^HTTP/1\.1 200 } ? (split /\r\n\r\n/, $r, 2)[1] : $r, "held\n", "$side: hold.php answered");
    ok t_cmp(wait_marks($marks, "q$side-fin", qr/shutdown/), "shutdown aborted=1\n",
             "$side: the closed client's request ran once, and ended at its first write (connection_aborted() 1)");
    # the next request follows it on the same worker: it has ended by then
    curl("http://127.0.0.1:$port{$side}/app/pid.php");
    ok t_cmp(marks_of($marks, "q$side-reset") eq '' ? 'never ran' : 'ran', 'never ran', "$side: the reset one never ran");
    my $after = pool_of($side);
    my @b = split ' ', counts($before);
    my @a = split ' ', counts($after);
    ok t_cmp(join(' ', map { $a[$_] - $b[$_] } 0 .. 3), '4 2 2 0',
             "$side: hold.php, the two queued, pid.php: 4 requests, 2 served, 2 aborted (each once)");
    ok t_cmp(join(' ', map { script_runs($after, $_) - script_runs($before, $_) } qw(hold.php long.php pid.php)),
             '1 1 1', "$side: by script, the requests that ran: hold.php 1, long.php 1 (not the reset one), pid.php 1");
}

my $log = private_log($dir);
ok t_cmp(scalar(() = $log =~ /CGIPLUS(?:2504|2084|2954)/g), 0, 'no php-cgi worker was killed (2504, 2084, 2954)');
ok t_cmp(php_stop($dir, $fpm), $fpm, 'php-fpm stopped');
