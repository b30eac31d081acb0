# Issue 22: the Authorization header under CGIplusEngine php, as under the
# peer it replaces. Debian's php-fpm set-up (php8.2-fpm.conf: its
# SetEnvIfNoCase ^Authorization$ line and its FilesMatch SetHandler) and
# mod_php give PHP the header: PHP_AUTH_USER and PHP_AUTH_PW for Basic,
# HTTP_AUTHORIZATION for a bearer token, also where httpd itself checked
# the password. A php pool gave none of it (httpd's CGI rule, CGIPassAuth
# off) and an application's HTTP log-in or API token failed. Compared
# side by side with a private php-fpm on a UNIX socket in the test's own
# directory, started and stopped by its pid; CGIPassAuth Off still hides
# the header from a php pool.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Digest::SHA qw(sha1_base64);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(fresh_dir);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);

my @cases = (
    ['/app/auth.php', '-u', 'ann:secret'],
    ['/app/auth.php', '-H', 'Authorization: Bearer tok123'],
    ['/app/auth.php'],
    ['/app/checked/auth.php', '-u', 'bob:secret'],
    ['/app/checked/auth.php'],
);
plan tests => 2 + 2 * @cases + 2, need php_need();

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/phpauth";
my ($cport, $fport) = free_ports(2);
fresh_dir($dir);
my $app = "$dir/app";
mkdir $_ for $app, "$app/checked", "$app/hidden";
chmod 0755, $app, "$app/checked", "$app/hidden";
my $php = <<'PHP';
<?php
header('Content-Type: text/plain');
foreach (['PHP_AUTH_USER', 'PHP_AUTH_PW', 'HTTP_AUTHORIZATION', 'AUTH_TYPE', 'REMOTE_USER'] as $k)
    echo $k, '=', $_SERVER[$k] ?? '(unset)', "\n";
PHP
write_file("$_/auth.php", $php, 0644) for $app, "$app/checked", "$app/hidden";
write_file("$dir/htpasswd", 'bob:{SHA}' . sha1_base64('secret') . "=\n", 0644);

my $fpm = php_fpm($dir, 1);

my $common = <<"CONF";
    Alias /app/ $app/
    <Directory $app>
        Require all granted
    </Directory>
    <Directory $app/checked>
        AuthType Basic
        AuthName checked
        AuthUserFile $dir/htpasswd
        Require valid-user
    </Directory>
CONF
php_httpd($dir, $cport, [$fport], [qw(setenvif auth_basic authn_core authn_file authz_user)], <<"CONF", 'a private httpd with both');
<VirtualHost 127.0.0.1:$cport>
$common
    <Directory $app>
        CGIplusEngine php
        CGIplusMaxWorkers 1
    </Directory>
    <Directory $app/hidden>
        CGIPassAuth Off
    </Directory>
</VirtualHost>
# Debian's php8.2-fpm.conf, its socket the private php-fpm's
<VirtualHost 127.0.0.1:$fport>
$common
    SetEnvIfNoCase ^Authorization\$ "(.+)" HTTP_AUTHORIZATION=\$1
    <FilesMatch ".+\\.ph(?:ar|p|tml)\$">
        SetHandler "proxy:unix:$dir/fpm.sock|fcgi://localhost"
    </FilesMatch>
</VirtualHost>
CONF

for my $c (@cases) {
    my ($path, @args) = @$c;
    my (%code, %body);
    for ([cgiplus => $cport], [fpm => $fport]) {
        my ($who, $port) = @$_;
        ($code{$who}, undef, $body{$who}) = curl(@args, "http://127.0.0.1:$port$path");
    }
    my $what = "$path @args";
    ok t_cmp($code{cgiplus}, $code{fpm} || 'an answer from php-fpm', "$what: the same status ($code{fpm})");
    ok t_cmp($body{cgiplus}, $body{fpm}, "$what: the same \$_SERVER");
}
# The comparison saw the header at all.
my (undef, undef, $b) = curl('-u', 'ann:secret', "http://127.0.0.1:$cport/app/auth.php");
ok t_cmp($b, qr/^PHP_AUTH_USER=ann\nPHP_AUTH_PW=secret\nHTTP_AUTHORIZATION=Basic /m, 'Basic reaches PHP');
(undef, undef, $b) = curl('-u', 'ann:secret', "http://127.0.0.1:$cport/app/hidden/auth.php");
ok t_cmp($b, qr/^PHP_AUTH_USER=\(unset\)\nPHP_AUTH_PW=\(unset\)\nHTTP_AUTHORIZATION=\(unset\)\n/,
         'CGIPassAuth Off hides it from a php pool');

php_stop($dir, $fpm);
