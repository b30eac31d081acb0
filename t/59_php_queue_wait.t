# A php pool's request that finds every worker busy for longer than the
# runner's default queue wait (10 s), as under php-fpm. php-fpm keeps a
# request its children cannot take yet in its socket's backlog, and
# mod_proxy_fcgi waits for the answer up to Timeout; a php pool answered
# 503 after CGIplusQueueWait's 10 s instead. Found with MediaWiki (session
# 38): 20 concurrent API edits on SQLite, whose lock waits kept the 4
# workers busy past 10 s, got 503s where php-fpm's 4 children served all
# 20. Each side here has one worker (one php-fpm child) busy 12 s; a
# second request sent meanwhile must be served, direct and relayed
# (CGIplusDirect off), as by php-fpm in the same run. Compared side by side
# with a private php-fpm on a UNIX socket in the test's own directory.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(fresh_dir);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use AppTest qw(write_file);

my @sides = qw(fpm direct relayed);
plan tests => 2 + 3 * @sides + 3, need php_need();

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/phpqwait";
my %port;
@port{@sides} = free_ports(scalar @sides);
fresh_dir($dir);
my $app = "$dir/app";
mkdir $app;
chmod 0755, $app;
mkdir "$dir/mark";
chmod 0777, "$dir/mark";
# busy.php says it has started (a file), then keeps its worker 12 s: past
# the runner's 10 s, well within Timeout (60 s).
write_file("$app/busy.php", <<"PHP", 0644);
<?php
touch('$dir/mark/' . \$_GET['side']);
sleep(12);
echo "busy done\\n";
PHP
write_file("$app/quick.php", "<?php\necho \"quick\\n\";\n", 0644);

my $fpm = php_fpm($dir, 1);

php_httpd($dir, $port{direct}, [$port{fpm}, $port{relayed}], [], <<"CONF", 'a private httpd with all sides');
<VirtualHost 127.0.0.1:$port{direct}>
    Alias /app/ $app/
    <Directory $app>
        Require all granted
        CGIplusEngine php
        CGIplusMaxWorkers 1
    </Directory>
</VirtualHost>
<VirtualHost 127.0.0.1:$port{relayed}>
    CGIplusDirect off
    Alias /app/ $app/
    <Directory $app>
        Require all granted
        CGIplusEngine php
        CGIplusMaxWorkers 1
        # a pool of its own, not the direct side's
        CGIplusSetEnv QWAIT_SIDE relayed
    </Directory>
</VirtualHost>
# Debian's php8.2-fpm.conf, its socket the private php-fpm's
<VirtualHost 127.0.0.1:$port{fpm}>
    Alias /app/ $app/
    <Directory $app>
        Require all granted
    </Directory>
    <FilesMatch ".+\\.ph(?:ar|p|tml)\$">
        SetHandler "proxy:unix:$dir/fpm.sock|fcgi://localhost"
    </FilesMatch>
</VirtualHost>
CONF

# A request in the background: a pipe from curl (status line, then body).
sub start {
    my ($url) = @_;
    open my $fh, '-|', 'curl', '-s', '-S', '--max-time', '90', '-o', '-', '-w', '\n%{http_code}', $url
        or die "curl: $!";
    return $fh;
}
sub finish {
    my ($fh) = @_;
    local $/;
    my $out = <$fh> // '';
    close $fh;
    my ($body, $code) = $out =~ /\A(.*)\n(\d{3})\z/s;
    return ($code // 0, $body // $out);
}

# Every side's only worker busy, all at once ...
my %busy = map { $_ => start("http://127.0.0.1:$port{$_}/app/busy.php?side=$_") } @sides;
for my $side (@sides) {
    my $until = time + 60;
    sleep 0.1 until -e "$dir/mark/$side" || time > $until;
    ok t_cmp(-e "$dir/mark/$side" ? 1 : 0, 1, "$side: busy.php runs on the only worker");
}
# ... then one more request each, while it is busy
my %quick = map { $_ => start("http://127.0.0.1:$port{$_}/app/quick.php") } @sides;
for my $side (@sides) {
    my ($code, $body) = finish($quick{$side});
    ok t_cmp($code, 200, "$side: a request that waited for the busy worker is served, as by php-fpm");
    ok t_cmp($body, "quick\n", "$side: its body");
}
my %done = map { $_ => [finish($busy{$_})] } @sides;
ok t_cmp(join(' ', map { $done{$_}[0] } @sides), join(' ', map { 200 } @sides),
         'the busy requests end with 200 on every side');

# the 503s a short wait gives are logged (1732 direct, 1061 relayed)
open my $log, '<', "$dir/error_log" or die;
my @w = grep { /CGIPLUS(?:1732|1061)/ } <$log>;
close $log;
ok t_cmp(scalar @w, 0, 'no request was answered 503 for waiting');

ok t_cmp(php_stop($dir, $fpm), $fpm, 'php-fpm stopped');
