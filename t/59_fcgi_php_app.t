# Issue 22, part 3: a PHP application that needs no database server
# (t/htdocs/phpapp: sessions, a log-in form, notes added and deleted
# through POST-redirect-GET, a search, an upload, PATH_INFO pages, a 404,
# includes) served by php-cgi pool workers (CGIplusEngine php) and by
# php-fpm + mod_proxy_fcgi, the peer setup, side by side in one private
# httpd (a port each) with a private php-fpm on a UNIX socket in the test's
# own directory, started and stopped by its pid. The same walk through the
# application, with a cookie jar each, must give the same status, type,
# Location and body at every step.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Copy qw(copy);
use Time::HiRes qw(sleep);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(fresh_dir);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);

my @steps = (
    [GET => '/app/index.php'],
    [GET => '/app/notes.php'],
    [GET => '/app/login.php?next=notes.php'],
    [POST => '/app/login.php', '--data', 'name=ann&password=wrong&next=notes.php'],
    [POST => '/app/login.php', '--data', 'name=ann&password=secret&next=notes.php'],
    [GET => '/app/notes.php'],
    [POST => '/app/notes.php', '--data-urlencode', 'text=first <b>note</b> & more'],
    [POST => '/app/notes.php', '--data-urlencode', 'text=second, caf' . "\xc3\xa9"],
    [GET => '/app/notes.php'],
    [GET => '/app/index.php?q=sec'],
    [GET => '/app/notes.php?delete=0'],
    [GET => '/app/notes.php'],
    [POST => '/app/upload.php', '-F', 'f=@UPLOAD;type=application/x-test'],
    [POST => '/app/upload.php', '--data', 'nofile=1'],
    [GET => '/app/page.php/about'],
    [GET => '/app/page.php/contact?x=1&y=%20z'],
    [GET => '/app/page.php/nope'],
    [HEAD => '/app/index.php'],
    [GET => '/app/logout.php'],
    [GET => '/app/index.php'],
);
plan tests => 3 + 4 * @steps, need php_need();

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/phpapp";
my ($cport, $fport) = free_ports(2);
fresh_dir($dir);
my $app = "$vars->{documentroot}/phpapp";
my $sock = "$dir/fpm.sock";

# Upload data, the same file for both.
my $upload = "$dir/upload.bin";
write_file($upload, join('', map { chr(($_ * 31) % 256) } 1 .. 50_000), 0644);
for my $s (@steps) { s/UPLOAD/$upload/ for @$s }

# The private php-fpm: as many children as the pool has workers.
my $fpm = php_fpm($dir, 2);

php_httpd($dir, $cport, [$fport], [], <<"CONF", 'a private httpd with both');
DocumentRoot $vars->{documentroot}
# mod_cgiplus: php-cgi workers, as many as php-fpm has children
<VirtualHost 127.0.0.1:$cport>
    Alias /app/ $app/
    <Directory $app>
        Require all granted
        Options +ExecCGI
        AddHandler cgiplus-script .php
        CGIplusEngine php
        CGIplusMaxWorkers 2
    </Directory>
</VirtualHost>
# the peer: php-fpm through mod_proxy_fcgi (Debian's php8.2-fpm.conf way)
<VirtualHost 127.0.0.1:$fport>
    Alias /app/ $app/
    <Directory $app>
        Require all granted
        <FilesMatch ".+\\.php\$">
            SetHandler "proxy:unix:$sock|fcgi://localhost"
        </FilesMatch>
    </Directory>
</VirtualHost>
CONF

my %jar = (cgiplus => "$dir/jar-cgiplus", fpm => "$dir/jar-fpm");
unlink values %jar;
my @same;
for my $s (@steps) {
    my ($method, $path, @args) = @$s;
    my %r;
    for my $who (qw(cgiplus fpm)) {
        my $port = $who eq 'cgiplus' ? $cport : $fport;
        my @m = $method eq 'HEAD' ? ('-I') : $method eq 'POST' ? () : ();
        my ($code, $h, $body) = curl(@m, '-c', $jar{$who}, '-b', $jar{$who}, @args,
                                     "http://127.0.0.1:$port$path");
        $r{$who} = { code => $code, type => $h->{'content-type'} // '', loc => $h->{location} // '',
                     body => $body };
    }
    my ($c, $f) = @r{qw(cgiplus fpm)};
    ok t_cmp($c->{code}, $f->{code} || 'an answer from php-fpm', "$method $path: the same status ($f->{code})");
    ok t_cmp($c->{type}, $f->{type}, "$method $path: the same Content-Type");
    ok t_cmp($c->{loc}, $f->{loc}, "$method $path: the same Location");
    ok t_cmp($c->{body}, $f->{body}, "$method $path: the same body (" . length($f->{body}) . ' bytes)');
}
# The walk really went through the application.
my (undef, undef, $last) = curl('-b', $jar{cgiplus}, "http://127.0.0.1:$cport/app/index.php");
ok t_cmp($last, qr/Hello, stranger\..*page views this session: \d+/s, 'the walk ended logged out');

php_stop($dir, $fpm);
