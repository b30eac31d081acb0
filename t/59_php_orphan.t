# A PHP script with ignore_user_abort(true) whose client left runs on to
# its end under CGIplusEngine php (a FastCGI pool, direct path and
# relayed) and the fcgid-script drop-in (FcgidWrapper php-cgi), as under
# php-fpm (request_terminate_timeout; mod_fcgid lets it run unbounded):
# bounded by what bounds a running request of its pool
# (CGIplusTimeoutOutput, no-progress), not by the 5 s a gone client's
# worker had to get back (2504, 2084), which killed WordPress's wp-cron,
# mail sent after the page, any "fire and forget" endpoint. The pool
# serves others meanwhile; one over its timeout is still stopped (2954,
# direct and relayed alike; php-fpm: "execution timed out").
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/lib', 't/htdocs/apps';
use RawHTTP qw(leave_early);
use PrivateHttpd qw(private_dir private_log private_wait_log);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use Marks qw(marks_of wait_marks wait_gone);

my @sides = qw(direct relayed fcgid fpm);
plan tests => 3 + 8 * @sides + 1, need php_need();

my $dir = private_dir('phporphan');
my ($rport, $fport, $gport, $gsport, $port) = free_ports(5);
my ($app, $slow, $marks) = ("$dir/app", "$dir/slow", "$dir/marks");
mkdir $_, 0777 for $app, $slow, $marks;
chmod 0777, $marks;
# Writes until its client has surely left (its writes fail then), then
# waits for its go file (60 s at most) and notes that it finished.
my $run = <<'PHP';
<?php
ignore_user_abort(true);
$f = __DIR__ . '/../marks/' . $_GET['tag'];
file_put_contents($f, 'started ' . getmypid() . "\n", FILE_APPEND);
for ($i = 0; $i < 20; $i++) {
    echo str_repeat('x', 8191), "\n";
    flush();
    usleep(50000);
}
$t = time() + 60;
while (!file_exists("$f.go") && time() < $t)
    usleep(100000);
file_put_contents($f, "finished\n", FILE_APPEND);
PHP
write_file("$_/run.php", $run, 0644) for $app, $slow;
write_file("$_/pid.php", "<?php echo getmypid();\n", 0644) for $app, $slow;

my $user = Apache::Test::config()->{vars}{user};
my $fpm = php_fpm($dir, 2, <<"POOL");
[slow]
user = $user
listen = $dir/fpm-slow.sock
listen.owner = $user
listen.mode = 0600
pm = static
pm.max_children = 1
request_terminate_timeout = 8s
POOL
my $t = time + 10;
sleep 0.1 while time < $t && !-S "$dir/fpm-slow.sock";
ok t_cmp(-S "$dir/fpm-slow.sock" ? 1 : 0, 1, 'and its pool with request_terminate_timeout 8s');

my $pools = <<"POOLS";
    <Directory $app>
        CGIplusEngine php
        CGIplusMaxWorkers 3
        CGIplusTimeoutOutput 30s
    </Directory>
    <Directory $slow>
        CGIplusEngine php
        CGIplusMaxWorkers 2
        CGIplusTimeoutOutput 8s
    </Directory>
POOLS
my $fcgid = <<"FCGID";
    <Directory $dir>
        Options +ExecCGI
        AddHandler fcgid-script .php
        FcgidWrapper /usr/bin/php-cgi .php
    </Directory>
FCGID
php_httpd($dir, $port, [$rport, $fport, $gport, $gsport], [], <<"CONF", 'a private httpd: php pools direct and relayed, and php-fpm');
Alias /app/ $app/
Alias /slow/ $slow/
<Directory $dir>
    Require all granted
</Directory>
<VirtualHost 127.0.0.1:$port>
$pools</VirtualHost>
<VirtualHost 127.0.0.1:$rport>
    CGIplusDirect off
$pools</VirtualHost>
# mod_fcgid's PHP set-up, on the drop-in: FcgidBusyTimeout (a virtual
# host's) its output timeout
<VirtualHost 127.0.0.1:$gport>
    FcgidBusyTimeout 30
$fcgid</VirtualHost>
<VirtualHost 127.0.0.1:$gsport>
    FcgidBusyTimeout 8
$fcgid</VirtualHost>
<VirtualHost 127.0.0.1:$fport>
    <Directory $app>
        SetHandler "proxy:unix:$dir/fpm.sock|fcgi://localhost"
    </Directory>
    <Directory $slow>
        SetHandler "proxy:unix:$dir/fpm-slow.sock|fcgi://localhost"
    </Directory>
</VirtualHost>
CONF

my %port = (direct => $port, relayed => $rport, fcgid => $gport, fpm => $fport);
# where the slow one goes: the same port, but for the drop-in's FcgidBusyTimeout 8
my %sport = (%port, fcgid => $gsport);

my $fpm_log = sub { open my $fh, '<', "$dir/php-fpm.log" or return ''; local $/; <$fh> // '' };

# All sides at once (their pools are their own but direct's and relayed's,
# which have a worker more than the two orphans), so one wait covers them.
my %opid;
for my $side (@sides) {
    # a worker of each pool that served once (then the direct path claims it)
    curl("http://127.0.0.1:$port{$side}/app/pid.php");
    curl("http://127.0.0.1:$sport{$side}/slow/pid.php");
    ok t_cmp(leave_early($port{$side}, "/app/run.php?tag=$side"), 1, "$side: the client read the first lines and left");
}
for my $side (@sides) {
    ($opid{$side}) = wait_marks($marks, $side, qr/^started (\d+)/) =~ /^started (\d+)/;
    $opid{$side} //= 0;
}
# past the old bound (5 s after the clients left)
my $t0 = time;
sleep 0.5 while time < $t0 + 8;
for my $side (@sides) {
    my $opid = $opid{$side};
    ok t_cmp(kill(0, $opid) && marks_of($marks, $side) !~ /finished/ ? 1 : 0, 1,
             "$side: 8 s after its client left, the script (pid $opid) still runs");
    my ($code, undef, $pid) = curl("http://127.0.0.1:$port{$side}/app/pid.php");
    ok t_cmp("$code " . ($pid ne $opid ? 'another' : 'the orphan'), '200 another',
             "$side: meanwhile another worker of the pool serves a request");
}
for my $side (@sides) {
    write_file("$marks/$side.go", '', 0644);
    ok t_cmp(wait_marks($marks, $side, qr/finished/), qr/^started $opid{$side}\nfinished\n$/,
             "$side: told to go on, it ran to its end");
}

# over its pool's timeout (8 s): stopped
my %spid;
for my $side (@sides) {
    ok t_cmp(leave_early($sport{$side}, "/slow/run.php?tag=$side-slow"), 1, "$side: the client of a slow one left");
}
for my $side (@sides) {
    ($spid{$side}) = wait_marks($marks, "$side-slow", qr/^started (\d+)/) =~ /^started (\d+)/;
    $spid{$side} //= 0;
}
for my $side (@sides) {
    my $spid = $spid{$side};
    ok t_cmp(wait_gone($spid), 1, "$side: the script over its pool's timeout is stopped (pid $spid)");
    ok t_cmp(marks_of($marks, "$side-slow"), "started $spid\n", "$side: it did not finish");
    my $re = $side eq 'fpm' ? qr/child $spid, script .* execution timed out/
           : qr/CGIPLUS2954: worker pid $spid of .* ran past its request's timeout after its client left/;
    my $ok = $side eq 'fpm' ? do { my $t = time + 30; sleep 0.1 while time < $t && $fpm_log->() !~ $re; $fpm_log->() =~ $re ? 1 : 0 }
           : private_wait_log($dir, $re, 30);
    ok t_cmp($ok, 1, "$side: logged as such ($re)");
}
ok t_cmp(php_stop($dir, $fpm), $fpm, 'php-fpm stopped');
