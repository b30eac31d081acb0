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
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/lib', 't/htdocs/apps';
use RawHTTP qw(leave_early);
use PrivateHttpd qw(private_dir private_log);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use Marks qw(wait_marks);

my @sides = qw(direct relayed fpm);
plan tests => 2 + 4 * @sides + 2, need php_need();

my $dir = private_dir('phpabort');
my ($rport, $fport, $port) = free_ports(3);
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

my $fpm = php_fpm($dir, 1);

php_httpd($dir, $port, [$rport, $fport], [], <<"CONF", 'a private httpd: a php pool, direct and relayed, and php-fpm');
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
<VirtualHost 127.0.0.1:$fport>
    <FilesMatch ".+\\.php\$">
        SetHandler "proxy:unix:$dir/fpm.sock|fcgi://localhost"
    </FilesMatch>
</VirtualHost>
CONF

my %port = (direct => $port, relayed => $rport, fpm => $fport);

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
my $log = private_log($dir);
ok t_cmp(scalar(() = $log =~ /CGIPLUS(?:2504|2084|2954)/g), 0, 'no php-cgi worker was killed (2504, 2084, 2954)');
ok t_cmp(php_stop($dir, $fpm), $fpm, 'php-fpm stopped');
