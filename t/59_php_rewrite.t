# PHP front controllers behind mod_rewrite, mod_dir and ErrorDocument, the
# way WordPress, Laravel, Symfony, CodeIgniter and Drupal run: a php pool
# (CGIplusEngine php), direct and relayed, and that engine as plain CGI
# (CGIplusMode cgi), against php-fpm behind mod_proxy_fcgi (Debian's
# php8.2-fpm.conf shape), and the fcgid-script
# drop-in, direct and relayed, against the real mod_fcgid with php-cgi (a
# second private httpd, mod_fcgid loaded). The same document root on every
# side: WordPress's .htaccess at the root, in /blog/ (RewriteBase /blog/)
# and under an Alias, Laravel's and Symfony's, CodeIgniter 4's and 3's,
# Drupal 7's, rules in the virtual host (/front/), FallbackResource (/fb/)
# and ErrorDocument 404 (/ed/); each asked the same requests (a Range and an
# If-Match that fails among them), and status,
# headers and the printed $_SERVER compared with the peer's, but for the
# differences docs/APPS.md lists ("Where php-fpm and mod_fcgid differ").
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop private_dir libexec);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);

my @prefixes = ('/', '/blog/', '/lara/public/', '/front/', '/fb/', '/ed/', '/ci/', '/ci3/', '/d7/', '/sf/', '/alias/');
my @reqs = (
    [''], ['some/pretty/path?x=1'], ['index.php'], ['index.php/extra?y=2'], ['static.txt'], ['sub'], ['sub/'],
    ['caf%C3%A9/a%20b+c?q=a+b%2Fc&r=%C3%A9'], ['a%2Fb'], ['notfound'], ['x/../pretty'], ['x//y'],
    ['pretty/post?g=1', '-d', 'a=1&b=two+words'], ['pretty/auth', '-u', 'ann:secret'],
    ['pretty/auth', '-H', 'Authorization: Bearer tok123'], ['pretty/head', '-I'],
    ['missing.php'], ['pretty/big', '-H', 'Expect: 100-continue', '--data-binary', '@BIG'],
    ['pretty/upload?u=1', '-F', 'f=@BIG;filename=big.bin', '-F', "note=caf\xc3\xa9"],
    ['pretty/range', '-H', 'Range: bytes=0-9'], ['index.php?m=1', '-H', 'If-Match: "other"'],
);
my @pairs = (['pool', 'fpm'], ['poolr', 'fpm'], ['cgi', 'fpm'], ['dropin', 'fcgid'], ['dropinr', 'fcgid']);
my $per = 5;
plan tests => 3 + @prefixes * @reqs * @pairs * $per + 2,
     need php_need('needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so',
                   'needs mod_rewrite' => -f libexec() . '/mod_rewrite.so');

my $vars = Apache::Test::config()->{vars};
# private_dir: httpds a failed run left are stopped, these at the end
my $dir = private_dir('phprewrite');
my $gdir = private_dir('phprewrite-g');
write_file("$dir/big", join('', map { chr(($_ * 7) % 256) } 1 .. 100_000), 0644);  # under FcgidMaxRequestLen
my ($pport, $prport, $cport, $fport, $dport, $drport, $gport) = free_ports(7);
my $root = "$dir/root";
my $aliased = "$dir/aliased";
for my $p (@prefixes) {
    my $d = $p eq '/alias/' ? "$aliased/" : "$root$p";
    system('mkdir', '-p', "$d/sub");
    chmod 0755, $d, "$d/sub";
    write_file("$d/static.txt", "static in $p\n", 0644);
    # an hour old: httpd makes a file's ETag weak within a second of its
    # change, which would differ between two httpds by when they answer
    utime(time - 3600, time - 3600, "$d/static.txt");
}
chmod 0755, "$root/lara";
my $index = <<'PHP';
<?php
header('Content-Type: text/plain; charset=utf-8');
$path = parse_url($_SERVER['REQUEST_URI'] ?? '', PHP_URL_PATH);
if (preg_match('{/notfound$}', $path)) http_response_code(404);
foreach (['REQUEST_METHOD', 'REQUEST_URI', 'SCRIPT_NAME', 'SCRIPT_FILENAME', 'PHP_SELF', 'PATH_INFO',
          'PATH_TRANSLATED', 'QUERY_STRING', 'REDIRECT_URL', 'REDIRECT_STATUS', 'REDIRECT_QUERY_STRING',
          'REDIRECT_HTTP_AUTHORIZATION', 'HTTP_AUTHORIZATION', 'PHP_AUTH_USER', 'PHP_AUTH_PW',
          'DOCUMENT_ROOT', 'CONTEXT_PREFIX', 'CONTEXT_DOCUMENT_ROOT', 'REDIRECT_REDIRECT_STATUS',
          'REDIRECT_REQUEST_METHOD', 'APP_ENV', 'REDIRECT_APP_ENV', 'BASE', 'REDIRECT_BASE'] as $k)
    echo $k, '=', array_key_exists($k, $_SERVER) ? var_export($_SERVER[$k], true) : '(unset)', "\n";
echo 'code=', http_response_code(), "\n";
echo 'GET=', json_encode($_GET), "\n";
echo 'POST=', json_encode($_POST), "\n";
$in = file_get_contents('php://input');
echo 'input=', strlen($in) > 100 ? strlen($in) . ' ' . md5($in) : $in, "\n";
foreach ($_FILES as $k => $f) echo "file $k=", $f['name'], ' ', $f['size'], ' ', $f['error'], ' ',
                                     $f['error'] ? '' : md5_file($f['tmp_name']), "\n";
PHP
write_file($_ eq '/alias/' ? "$aliased/index.php" : "$root${_}index.php", $index, 0644) for @prefixes;
my $wp = <<'HT';
RewriteEngine On
RewriteBase BASE
RewriteRule ^index\.php$ - [L]
RewriteCond %{REQUEST_FILENAME} !-f
RewriteCond %{REQUEST_FILENAME} !-d
RewriteRule . BASEindex.php [L]
HT
(my $w = $wp) =~ s/BASE/\//g;
write_file("$root/.htaccess", $w, 0644);
($w = $wp) =~ s/BASE/\/blog\//g;
write_file("$root/blog/.htaccess", $w, 0644);
($w = $wp) =~ s/BASE/\/alias\//g;
write_file("$aliased/.htaccess", $w, 0644);
# CodeIgniter 4's (the path as PATH_INFO), CodeIgniter 3's CGI form (the
# path in the query) and Drupal 7's (the path in ?q=)
write_file("$root/ci/.htaccess", <<'HT', 0644);
RewriteEngine On
RewriteCond %{REQUEST_FILENAME} !-f
RewriteCond %{REQUEST_FILENAME} !-d
RewriteRule ^([\s\S]*)$ index.php/$1 [L,NC,QSA]
HT
write_file("$root/ci3/.htaccess", <<'HT', 0644);
RewriteEngine On
RewriteCond %{REQUEST_FILENAME} !-f
RewriteCond %{REQUEST_FILENAME} !-d
RewriteRule ^(.*)$ index.php?/$1 [L]
HT
# Symfony's (symfony/apache-pack)
write_file("$root/sf/.htaccess", <<'HT', 0644);
DirectoryIndex index.php
<IfModule mod_negotiation.c>
    Options -MultiViews
</IfModule>
<IfModule mod_rewrite.c>
    RewriteEngine On
    RewriteCond %{REQUEST_URI}::$0 ^(/.+)/(.*)::\2$
    RewriteRule .* - [E=BASE:%1]
    RewriteCond %{HTTP:Authorization} .+
    RewriteRule ^ - [E=HTTP_AUTHORIZATION:%0]
    RewriteCond %{ENV:REDIRECT_STATUS} =""
    RewriteRule ^index\.php(?:/(.*)|$) %{ENV:BASE}/$1 [R=301,L]
    RewriteCond %{REQUEST_FILENAME} !-f
    RewriteRule ^ %{ENV:BASE}/index.php [L]
</IfModule>
HT
write_file("$root/d7/.htaccess", <<'HT', 0644);
RewriteEngine on
RewriteCond %{REQUEST_FILENAME} !-f
RewriteCond %{REQUEST_FILENAME} !-d
RewriteCond %{REQUEST_URI} !=/favicon.ico
RewriteRule ^ index.php [L]
RewriteRule ^(.*)$ index.php?q=$1 [L,QSA]
HT
write_file("$root/lara/public/.htaccess", <<'HT', 0644);
<IfModule mod_rewrite.c>
    <IfModule mod_negotiation.c>
        Options -MultiViews -Indexes
    </IfModule>

    RewriteEngine On
    SetEnv APP_ENV production

    # Handle Authorization Header
    RewriteCond %{HTTP:Authorization} .
    RewriteRule .* - [E=HTTP_AUTHORIZATION:%{HTTP:Authorization}]

    # Redirect Trailing Slashes If Not A Folder...
    RewriteCond %{REQUEST_FILENAME} !-d
    RewriteCond %{REQUEST_URI} (.+)/$
    RewriteRule ^ %1 [L,R=301]

    # Send Requests To Front Controller...
    RewriteCond %{REQUEST_FILENAME} !-d
    RewriteCond %{REQUEST_FILENAME} !-f
    RewriteRule ^ index.php [L]
</IfModule>
HT
# /front/, /fb/, /ed/ take no .htaccess: their rules are the server's.
write_file("$root$_/.htaccess", "RewriteEngine Off\n", 0644) for qw(/front /fb /ed);

my $common = <<"CONF";
    DocumentRoot $root
    AllowEncodedSlashes NoDecode
    DirectoryIndex index.php index.html
    Alias /alias/ $aliased/
    <Directory $root>
        Require all granted
        AllowOverride All
    </Directory>
    <Directory $aliased>
        Require all granted
        AllowOverride All
    </Directory>
    RewriteEngine On
    RewriteCond %{DOCUMENT_ROOT}%{REQUEST_URI} !-f
    RewriteCond %{DOCUMENT_ROOT}%{REQUEST_URI} !-d
    RewriteRule ^/front/ /front/index.php [L]
    <Directory $root/fb>
        FallbackResource /fb/index.php
    </Directory>
    <Directory $root/ed>
        ErrorDocument 404 /ed/index.php
    </Directory>
CONF
my $fcgid = <<"CONF";
$common
    <DirectoryMatch "^($root|$aliased)">
        Options +ExecCGI
        AddHandler fcgid-script .php
        FcgidWrapper /usr/bin/php-cgi .php
    </DirectoryMatch>
CONF
my $pool = <<"CONF";
$common
    <DirectoryMatch "^($root|$aliased)">
        CGIplusEngine php
        CGIplusMaxWorkers 1
    </DirectoryMatch>
CONF
my @mods = qw(rewrite dir setenvif env);
my $fpm = php_fpm($dir, 1);
php_httpd($dir, $pport, [$prport, $cport, $fport, $dport, $drport], \@mods, <<"CONF", 'a private httpd with a php pool, php-fpm and the drop-in');
<VirtualHost 127.0.0.1:$pport>
$pool
</VirtualHost>
<VirtualHost 127.0.0.1:$prport>
$pool
    CGIplusDirect off
</VirtualHost>
# php-cgi run as plain CGI, a process per request
<VirtualHost 127.0.0.1:$cport>
$pool
    CGIplusMode cgi
</VirtualHost>
# Debian's php8.2-fpm.conf, its socket the private php-fpm's
<VirtualHost 127.0.0.1:$fport>
$common
    SetEnvIfNoCase ^Authorization\$ "(.+)" HTTP_AUTHORIZATION=\$1
    <FilesMatch ".+\\.ph(?:ar|p|tml)\$">
        SetHandler "proxy:unix:$dir/fpm.sock|fcgi://localhost"
    </FilesMatch>
</VirtualHost>
<VirtualHost 127.0.0.1:$dport>
$fcgid
</VirtualHost>
<VirtualHost 127.0.0.1:$drport>
$fcgid
    CGIplusDirect off
</VirtualHost>
CONF
my $lib = libexec();
my $load = join '', map { "LoadModule ${_}_module $lib/mod_$_.so\n" } qw(alias mime fcgid), @mods;
write_file("$gdir/httpd.conf", private_conf($gdir, $gport, [], <<"CONF"), 0644);
${load}TypesConfig /etc/mime.types
FcgidIPCDir $gdir/fcgid
FcgidProcessTableFile $gdir/fcgid_shm
<VirtualHost 127.0.0.1:$gport>
$fcgid
</VirtualHost>
CONF
ok t_cmp(private_start("$gdir/httpd.conf", $gport), 1, 'a private httpd with mod_fcgid');

# The headers but the date, Server (mod_fcgid adds its name) and the
# framing (docs/APPS.md: a response's framing may differ between sides).
sub heads {
    my ($h) = @_;
    my @k = grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive)$/ } keys %$h;
    return join "\n", map { "$_: $h->{$_}" } sort @k;
}

my %port = (pool => $pport, poolr => $prport, cgi => $cport, fpm => $fport, dropin => $dport, dropinr => $drport, fcgid => $gport);
my @diff;
for my $p (@prefixes) {
    for my $r (@reqs) {
        my ($rel, @args) = @$r;
        s/\bBIG\b/$dir\/big/ for @args;
        my $path = "$p$rel";
        my (%code, %h, %body);
        for my $who (keys %port) {
            ($code{$who}, $h{$who}, $body{$who}) = curl('--path-as-is', @args, "http://127.0.0.1:$port{$who}$path");
            $body{$who} = "" if grep { $_ eq "-I" } @args;  # curl prints the head again
            t_debug("$who $path @args: $code{$who} "
                    . join(' ', map { "$_=$h{$who}{$_}" } grep { $h{$who}{$_} } qw(content-type location content-length))
                    . "\n$body{$who}");
        }
        for my $who (keys %port) {  # the port each side redirects to
            s/:$port{$who}\b/:PORT/g for $body{$who}, exists $h{$who}{location} ? $h{$who}{location} : ();
        }
        for my $pair (@pairs) {
            my ($me, $peer) = @$pair;
            my $what = "$me vs $peer: $path @args";
            my ($ref, $expect) = ($peer, $body{$peer});
            if ($peer eq 'fpm') {
                # docs/APPS.md: a .php that does not exist is php-fpm's own
                # 404; a php pool's is httpd's, as mod_fcgid's.
                $ref = 'fcgid' if $code{fpm} eq '404' and $body{fpm} eq "File not found.\n";
                # docs/APPS.md: a failed If-Match is httpd's 412 page under
                # php-cgi as plain CGI, as under mod_cgi and mod_fcgid; php-fpm
                # and a php pool send the script's headers without a body.
                $ref = 'fcgid' if $me eq 'cgi' and $code{fpm} eq '412';
                $expect = $body{$ref};
                # docs/APPS.md: a rewrite to index.php/PATH (CodeIgniter 4's)
                # runs on a php pool as under php-fpm, without REDIRECT_URL
                # (with it php-cgi would take PATH_TRANSLATED for the script).
                $expect =~ s/^REDIRECT_URL=.*$/REDIRECT_URL=(unset)/m
                    if $expect =~ /^PATH_INFO='/m;
                # docs/APPS.md: Debian's SetEnvIfNoCase line makes an
                # HTTP_AUTHORIZATION variable, which an internal redirect
                # passes on as REDIRECT_HTTP_AUTHORIZATION; a php pool passes
                # the header itself (as mod_php), not a variable.
                $expect =~ s/^REDIRECT_HTTP_AUTHORIZATION=.*$/REDIRECT_HTTP_AUTHORIZATION=(unset)/m
                    unless $p eq '/lara/public/' or $p eq '/sf/';
                # docs/APPS.md: php-cgi run as plain CGI gets REDIRECT_STATUS
                # as from mod_actions (cgi.force_redirect wants it), and no
                # Authorization, as under mod_cgi (CGIPassAuth off), unless
                # the rules put it in a variable.
                if ($me eq 'cgi') {
                    $expect =~ s/^REDIRECT_STATUS=\(unset\)$/REDIRECT_STATUS='200'/m;
                    $expect =~ s/^(HTTP_AUTHORIZATION|PHP_AUTH_USER|PHP_AUTH_PW)=.*$/$1=(unset)/mg
                        unless $p eq '/lara/public/' or $p eq '/sf/';
                }
            }
            push @diff, $what if $code{$me} ne $code{$ref} or $body{$me} ne $expect;
            ok t_cmp($code{$me}, $code{$ref} || "an answer from $ref", "$what: the same status");
            ok t_cmp($h{$me}{'content-type'} // '', $h{$ref}{'content-type'} // '', "$what: the same Content-Type");
            ok t_cmp($h{$me}{location} // '', $h{$ref}{location} // '', "$what: the same Location");
            ok t_cmp($body{$me}, $expect, "$what: the same body");
            ok t_cmp(heads($h{$me}), heads($h{$ref}), "$what: the same other headers");
        }
    }
}
t_debug("differs: $_") for @diff;
# The comparison ran PHP at all.
my (undef, undef, $b) = curl("http://127.0.0.1:$pport/blog/some/pretty/path?x=1");
ok t_cmp($b, qr/^SCRIPT_NAME='\/blog\/index.php'\n/m, 'the front controller ran on the php pool');
(undef, undef, $b) = curl("http://127.0.0.1:$dport/lara/public/some/pretty/path?x=1");
ok t_cmp($b, qr/^SCRIPT_NAME='\/lara\/public\/index.php'\n/m, 'the front controller ran on the drop-in');

private_stop("$gdir/httpd.pid");
php_stop($dir, $fpm);
