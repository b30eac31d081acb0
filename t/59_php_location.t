# Issue 22: a 200 with a Location header under CGIplusEngine php, as under
# the peer it replaces. php-fpm behind mod_proxy_fcgi (Debian's
# php8.2-fpm.conf set-up) and mod_php send it as it is: status 200, the
# Location, the script's body (a framework's response that names a
# resource: Symfony sets its headers, then its status line). A php pool
# took it for a CGI redirect, as mod_cgi and mod_fcgid do: a local path
# answered with another page's body, an absolute URL with a 302. Compared
# side by side with a private php-fpm on a UNIX socket in the test's own
# directory, started and stopped by its pid. The fcgid-script drop-in (no
# mod_fcgid loaded here) keeps mod_fcgid's redirect.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(fresh_dir);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);

my @paths = qw(/app/loc200.php /app/locabs200.php /app/loc302.php /app/loc201.php);
plan tests => 2 + 3 * @paths + 2, need php_need();

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/phploc";
my ($cport, $fport, $dport) = free_ports(3);
fresh_dir($dir);
my $app = "$dir/app";
mkdir $app;
chmod 0755, $app;
my %php = (
    'loc200.php' => "header('Location: /app/target.php');\nhttp_response_code(200);\necho \"own body\\n\";\n",
    'locabs200.php' => "header('Location: http://example.com/x');\nhttp_response_code(200);\necho \"own body\\n\";\n",
    'loc302.php' => "header('Location: /app/target.php');\necho \"moving\\n\";\n",
    'loc201.php' => "http_response_code(201);\nheader('Location: /app/target.php');\necho \"created\\n\";\n",
    'target.php' => "echo \"the target\\n\";\n",
);
write_file("$app/$_", "<?php\n$php{$_}", 0644) for keys %php;

my $fpm = php_fpm($dir, 1);

php_httpd($dir, $cport, [$fport, $dport], [], <<"CONF", 'a private httpd with both');
<VirtualHost 127.0.0.1:$cport>
    Alias /app/ $app/
    <Directory $app>
        Require all granted
        CGIplusEngine php
        CGIplusMaxWorkers 1
    </Directory>
</VirtualHost>
# Debian's php8.2-fpm.conf, its socket the private php-fpm's
<VirtualHost 127.0.0.1:$fport>
    Alias /app/ $app/
    <Directory $app>
        Require all granted
    </Directory>
    <FilesMatch ".+\\.ph(?:ar|p|tml)\$">
        SetHandler "proxy:unix:$dir/fpm.sock|fcgi://localhost"
    </FilesMatch>
</VirtualHost>
# mod_fcgid's PHP set-up, on the drop-in
<VirtualHost 127.0.0.1:$dport>
    Alias /app/ $app/
    <Directory $app>
        Require all granted
        Options +ExecCGI
        AddHandler fcgid-script .php
        FcgidWrapper /usr/bin/php-cgi .php
    </Directory>
</VirtualHost>
CONF

for my $path (@paths) {
    my (%code, %h, %body);
    for ([cgiplus => $cport], [fpm => $fport]) {
        my ($who, $port) = @$_;
        ($code{$who}, $h{$who}, $body{$who}) = curl("http://127.0.0.1:$port$path");
    }
    ok t_cmp($code{cgiplus}, $code{fpm} || 'an answer from php-fpm', "$path: the same status ($code{fpm})");
    ok t_cmp($h{cgiplus}{location} // '', $h{fpm}{location} // '', "$path: the same Location");
    ok t_cmp($body{cgiplus}, $body{fpm}, "$path: the same body");
}
my ($code, undef, $body) = curl("http://127.0.0.1:$cport/app/loc200.php");
ok t_cmp("$code $body", "200 own body\n", "a php pool's 200 with a Location is the script's");
($code, undef, $body) = curl("http://127.0.0.1:$dport/app/loc200.php");
ok t_cmp("$code $body", "200 the target\n", "the fcgid-script drop-in redirects, as mod_fcgid");

php_stop($dir, $fpm);
