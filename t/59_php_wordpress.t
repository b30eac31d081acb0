# Issue 22, part 3: WordPress, the most common PHP application behind
# Apache: Debian 12's wordpress package (6.1) on a private MariaDB, through
# a php pool (CGIplusEngine php) direct and relayed, and through mod_fcgid's
# PHP set-up (FcgidWrapper /usr/bin/php-cgi .php) on the fcgid-script
# drop-in, each compared with php-fpm + mod_proxy_fcgi (Debian's
# php8.2-fpm.conf way) in one private httpd.
#
# Debian's wp-config.php reads /etc/wordpress/config-HOST.php (or
# config-$WORDPRESS_CONFIG.php, by SetEnv). The test leaves /etc alone (a
# file there would outlive a killed run, and needs root): it serves a
# private copy of /usr/share/wordpress whose Debian wp-config.php is
# unchanged but for that directory, moved into the test's own; each side's
# virtual host says "SetEnv WORDPRESS_CONFIG side" (Debian's documented
# way), and that side's file names its database. The copy's .htaccess is
# the one WordPress writes for pretty permalinks (its front controller,
# and its E=HTTP_AUTHORIZATION rule).
#
# The same walk on every side, with a cookie jar each: WordPress's
# redirect to its installer, the installer's form and its step 2 POST, the
# home page, a log-in (the test cookie, the POST, its 302 and auth
# cookies), the dashboard, pretty permalinks chosen by the admin form's
# POST with its nonce, admin-ajax.php (the REST nonce, a POST, none), an
# application password made by the REST API with that nonce, a post made
# with it (Basic Authorization) by the REST API, the post by its pretty
# permalink and by ?p= (WordPress's 301), a comment by
# wp-comments-post.php (302), the REST API by /wp-json/ and ?rest_route=,
# XML-RPC, search, a feed, load-styles.php, a 404, HEAD, log-out. Status,
# Content-Type, Location, the other headers and the body must match at
# every step (what legitimately differs normalised, each said below); each
# php-cgi pool served its side's whole walk on its two workers (the
# installer's request to the site takes the second), the same pids
# throughout.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_dir);
use PhpPeer qw(php_need php_fpm php_four_sides php_stop);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(walk same_pairs php_workers);
use PrivMariaDB qw(mariadbd_bin mariadb_start mariadb_sql mariadb_query mariadb_stop);

my $wp = '/usr/share/wordpress';
my $pass = 'Walk-the-1-blog';
my $slug = 'from-a-test';
my (%app, %id);    # a side's application password, its post's id
sub ff { my ($b, $n) = @_; ($b =~ /name="\Q$n\E" value="([^"]*)"/)[0] // '' }
# Basic Authorization with the side's application password, without
# the log-in's cookies (WordPress takes a cookie's user before it)
sub basic { ('no-jar', '-u', "admin:$app{$_[0]}") }
my $json = "{\"title\":\"From a test\",\"slug\":\"$slug\",\"status\":\"publish\","
         . "\"content\":\"<p>Made through the REST API, caf\xc3\xa9 &amp; &lt;tags&gt;.</p>\"}";
# [the status the step must get, the step]
my @steps = (
    [302, sub { [GET => '/'] }],
    [200, sub { [GET => '/wp-admin/install.php'] }],
    [200, sub { [POST => '/wp-admin/install.php?step=2', '--data-urlencode', 'weblog_title=A test blog',
            '--data-urlencode', 'user_name=admin', '--data-urlencode', "admin_password=$pass",
            '--data-urlencode', "admin_password2=$pass", '--data-urlencode', 'admin_email=admin@example.org',
            '--data-urlencode', 'blog_public=0', '--data-urlencode', 'language=',
            '--data-urlencode', 'Submit=Install WordPress'] }],
    [200, sub { [GET => '/'] }],
    [200, sub { [GET => '/wp-login.php'] }],
    [302, sub { [POST => '/wp-login.php', '--data-urlencode', 'log=admin', '--data-urlencode', "pwd=$pass",
            '--data-urlencode', 'wp-submit=Log In', '--data-urlencode', 'testcookie=1'] }],
    [200, sub { [GET => '/wp-admin/'] }],
    [200, sub { [GET => '/wp-admin/options-permalink.php'] }],
    [302, sub { [POST => '/wp-admin/options-permalink.php', '--data-urlencode', '_wpnonce=' . ff($_[0]{body}, '_wpnonce'),
            '--data-urlencode', '_wp_http_referer=/wp-admin/options-permalink.php',
            '--data-urlencode', 'selection=/%postname%/', '--data-urlencode', 'permalink_structure=/%postname%/',
            '--data-urlencode', 'category_base=', '--data-urlencode', 'tag_base=', '--data-urlencode', 'submit=Save Changes'] }],
    # WordPress rebuilds its rewrite rules on the page its 302 leads to
    [200, sub { [GET => '/wp-admin/options-permalink.php?settings-updated=true'] }],
    [200, sub { [GET => '/wp-admin/admin-ajax.php?action=rest-nonce'] }],
    [201, sub { [POST => '/wp-json/wp/v2/users/me/application-passwords', '-H', "X-WP-Nonce: $_[0]{body}",
            '--data-urlencode', 'name=walk'] }],
    [201, sub { ($app{$_[1]}) = $_[0]{body} =~ /"password":"([^"]+)"/;
            $app{$_[1]} //= 'none';
            [POST => '/wp-json/wp/v2/posts', basic($_[1]), '-H', 'Content-Type: application/json', '--data', $json] }],
    [200, sub { ($id{$_[1]}) = $_[0]{body} =~ /^\{"id":(\d+),/;
            $id{$_[1]} //= 0;
            [GET => "/$slug/"] }],
    [301, sub { [GET => "/?p=$id{$_[1]}"] }],
    [302, sub { [POST => '/wp-comments-post.php', '--data-urlencode', "comment_post_ID=$id{$_[1]}",
            '--data-urlencode', 'comment_parent=0', '--data-urlencode', "comment=A comment, caf\xc3\xa9.",
            '--data-urlencode', 'submit=Post Comment'] }],
    [200, sub { [GET => "/$slug/"] }],
    [200, sub { [GET => '/wp-json/'] }],
    [200, sub { [GET => '/wp-json/wp/v2/posts?per_page=5'] }],
    [200, sub { [GET => "/?rest_route=/wp/v2/posts/$id{$_[1]}"] }],
    [200, sub { [GET => '/wp-json/wp/v2/users/me?context=edit', basic($_[1])] }],
    [200, sub { [GET => '/index.php?rest_route=/wp/v2/users/me', basic($_[1])] }],
    [200, sub { [POST => '/wp-admin/admin-ajax.php', '--data-urlencode', 'action=query-attachments',
            '--data-urlencode', 'query[posts_per_page]=10'] }],
    [400, sub { [GET => '/wp-admin/admin-ajax.php'] }],
    [200, sub { [POST => '/xmlrpc.php', '-H', 'Content-Type: text/xml', '--data-binary',
           '<?xml version="1.0"?><methodCall><methodName>wp.getPosts</methodName><params>'
            . '<param><value><int>1</int></value></param><param><value><string>admin</string></value></param>'
            . "<param><value><string>$pass</string></value></param></params></methodCall>"] }],
    [200, sub { [GET => '/?s=test'] }],
    [200, sub { [GET => '/feed/'] }],
    [200, sub { [GET => '/wp-admin/load-styles.php?c=0&dir=ltr&load%5Bchunk_0%5D=dashicons,admin-bar&ver=6.1.9'] }],
    [404, sub { [GET => '/no-such-page/'] }],
    [200, sub { [HEAD => "/$slug/"] }],
    [200, sub { [GET => '/wp-admin/edit.php'] }],
    [302, sub { my ($n) = $_[0]{body} =~ /wp-login\.php\?action=logout(?:&amp;|&#038;)_wpnonce=(\w+)/;
            [GET => '/wp-login.php?action=logout&_wpnonce=' . ($n // '')] }],
    [302, sub { [GET => '/wp-admin/'] }],
);
my @pairs = (['pool', 'fpm'], ['poolr', 'fpm'], ['dropin', 'fpm']);
plan tests => 3 + (1 + 5 * @pairs) * @steps + 1 + 3 + 2 * 3,
    need php_need('needs wordpress, its theme and mariadb-server (Debian packages wordpress, '
                  . 'wordpress-theme-twentytwentythree, mariadb-server)' =>
                  (-f "$wp/wp-settings.php" && -d "$wp/wp-content/themes/twentytwentythree" && mariadbd_bin()
                   && `php -m 2>/dev/null` =~ /^mysqli$/m));

my $vars = Apache::Test::config()->{vars};
my $dir = private_dir('wordpress');
my ($pport, $rport, $dport, $fport) = free_ports(4);
my %port = (pool => $pport, poolr => $rport, dropin => $dport, fpm => $fport);
my ($uid, $gid) = (getpwnam($vars->{user}))[2, 3];

# ---- a private MariaDB (PrivMariaDB), a database a side
my $db = mariadb_start($dir);
my $mysock = $db->{sock};
my $sql = join '', "CREATE USER wp\@localhost IDENTIFIED BY 'wp-pass';\n",
    map { "CREATE DATABASE wp_$_; GRANT ALL ON wp_$_.* TO wp\@localhost;\n" } sort keys %port;
ok t_cmp(mariadb_sql($db, $sql), 1, "a private mariadbd (pid $db->{pid}) on $mysock, a database a side");

# ---- the copy, Debian's wp-config.php reading its files from $dir/etc
system('cp', '-a', $wp, "$dir/wordpress") == 0 or die "cp $wp";
my $cfg = do { local $/; open my $fh, '<', "$wp/wp-config.php" or die "$wp/wp-config.php: $!"; <$fh> };
$cfg =~ s{/etc/wordpress/}{$dir/etc/}g or die 'wp-config.php: no /etc/wordpress';
write_file("$dir/wordpress/wp-config.php", $cfg, 0644);
write_file("$dir/wordpress/.htaccess", <<'HT', 0644);
# BEGIN WordPress
<IfModule mod_rewrite.c>
RewriteEngine On
RewriteRule .* - [E=HTTP_AUTHORIZATION:%{HTTP:Authorization}]
RewriteBase /
RewriteRule ^index\.php$ - [L]
RewriteCond %{REQUEST_FILENAME} !-f
RewriteCond %{REQUEST_FILENAME} !-d
RewriteRule . /index.php [L]
</IfModule>

# END WordPress
HT
mkdir "$dir/$_" for qw(etc mu-plugins);
# The installer mails the admin; this machine may have an MTA
write_file("$dir/mu-plugins/no-mail.php", "<?php\nadd_filter('pre_wp_mail', '__return_false');\n", 0644);
for my $side (sort keys %port) {
    write_file("$dir/etc/config-$side.php", <<"PHP", 0644);
<?php
define('DB_NAME', 'wp_$side');
define('DB_USER', 'wp');
define('DB_PASSWORD', 'wp-pass');
define('DB_HOST', 'localhost:$mysock');
// as Debian's examples/config-default.php
define('DB_CHARSET', 'utf8');
define('DB_COLLATE', '');
// Debian's default is the system's /var/lib/wordpress/wp-content
define('WP_CONTENT_DIR', '$dir/wordpress/wp-content');
define('WPMU_PLUGIN_DIR', '$dir/mu-plugins');
// no loopback request to wp-cron.php at a time of its own choosing
define('DISABLE_WP_CRON', true);
// no network: update checks and translations fail at once
define('WP_HTTP_BLOCK_EXTERNAL', true);
// application passwords without HTTPS
define('WP_ENVIRONMENT_TYPE', 'local');
PHP
}
# the web server's, as Debian's /var/lib/wordpress/wp-content
system('chown', '-R', "$uid:$gid", "$dir/wordpress/wp-content") if $> == 0;

# ---- one httpd: a virtual host a side
# Two workers a side: WordPress's installer asks the site for a page
# (wp_install_maybe_enable_pretty_permalinks) while its own request runs;
# with one, that request waits its 5 s out and pretty permalinks stay off.
my $fpm = php_fpm($dir, 2);
php_four_sides($dir, \%port, "$dir/wordpress", [qw(dir rewrite env)],
               sub { "    DocumentRoot $dir/wordpress\n    SetEnv WORDPRESS_CONFIG $_[0]\n" }, <<"CONF");
DirectoryIndex index.php index.html
# Debian's example (/usr/share/doc/wordpress/examples/apache.conf)
<Directory $dir/wordpress>
    Options FollowSymLinks
    AllowOverride All
    Require all granted
</Directory>
# the status page: not WordPress's front controller (its .htaccess)
<Location /cgiplus-status>
    RewriteEngine Off
</Location>
CONF

# What may differ between the sides: the port; WordPress's nonces (ten hex
# digits of a hash with the session's random token), its cookie hash (of
# the site's URL, the port in it), the application password and its uuid;
# clock times and dates; the installer's suggested random password.
sub norm {
    my ($s, $port) = @_;
    $s =~ s/127\.0\.0\.1(:|%3A)$port\b/127.0.0.1${1}PORT/g;
    $s =~ s/\b[0-9a-f]{32}\b/HASH/g;
    $s =~ s/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/UUID/g;
    $s =~ s/\b[0-9a-f]{10}\b/NONCE/g;
    $s =~ s/"password":"[^"]*"/"password":"APP"/g;
    $s =~ s/(data-pw=")[^"]*/$1PW/g;
    $s =~ s/\b20\d\d-\d\d-\d\d[T ]\d\d:\d\d:\d\d\b/ISO/g;
    $s =~ s/\b20\d\d\d\d\d\dT\d\d:\d\d:\d\d\b/ISO/g;
    $s =~ s/\b[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} 20\d\d \d\d:\d\d:\d\d [+-]\d{4}\b/RFC/g;
    $s =~ s/\b[A-Z][a-z]+ \d{1,2}, 20\d\d\b/DATE/g;
    $s =~ s/\b\d{1,2}:\d\d (?:am|pm)\b/TIME/g;
    $s =~ s/\b\d{4}\/\d\d\/\d\d\b/DATE/g;
    # (the permalink settings' month example is now's year and month too)
    $s =~ s{(<code id="permalink-month-name">[^<]*/)20\d\d/\d\d(/sample-post/</code>)}{$1YYYY/MM$2}g;
    # the date and time fields of the list's quick edit: each post's, and
    # the clock's
    $s =~ s/(<div class="(?:aa|mm|jj|hh|mn|ss)">)\d+</$1N</g;
    $s =~ s/(id="(?:(?:hidden_|cur_)?(?:aa|mm|jj|hh|mn)|ss)" name="\w+" value=")\d+/$1N/g;
    # (and its visible fields, which have no id: the last listed post's
    # date, made on each side at its own moment, a minute apart at times)
    $s =~ s/(<input type="text" name="(?:aa|jj|hh|mn)" value=")\d+/$1N/g;
    $s =~ s{(<select class="form-required" name="mm">.*?</select>)}{my $m = $1; $m =~ s/ selected='selected'//r}gse;
    return $s;
}
# The headers but the date, Server, the framing, Location (compared
# above); cookies' values and their names' hash; the REST API's nonce;
# times.
sub heads {
    my ($h) = @_;
    my @k = grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive|location)$/ } keys %$h;
    return join "\n", map { my $v = $h->{$_};
                            $v =~ s/127\.0\.0\.1:\d+/127.0.0.1:PORT/g;
                            $v =~ s/_[0-9a-f]{32}=/_HASH=/g if $_ eq 'set-cookie';
                            $v =~ s/=[^;]+/=VALUE/ if $_ eq 'set-cookie';
                            $v =~ s/(expires=)[^;]+/$1TIME/i if $_ eq 'set-cookie';
                            $v = 'NONCE' if $_ eq 'x-wp-nonce';
                            # a feed's: its newest post's time, and a hash of it
                            $v = 'TIME' if $_ eq 'last-modified' || $_ eq 'etag' && $h->{'last-modified'};
                            # load-styles.php's: its max-age from the clock's
                            # time (a second apart on two sides now and then)
                            $v = 'TIME' if $_ eq 'expires' && ($h->{'cache-control'} // '') =~ /max-age=[1-9]/;
                            "$_: $v" } sort @k;
}

# Each pool's workers after the walk's first step (one) and after the
# installer's (two, the second started for its request to the site): the
# same must serve it all.
my (%pid0, %pid1, @diff);
my $status = "http://127.0.0.1:$pport/cgiplus-status";
sub worker_of { return php_workers($status, $port{$_[0]}) }
my $n = 0;
walk([map { $_->[1] } @steps], \%port, $dir, \&norm, sub {
    my ($what, $r) = @_;
    for my $side ($n == 0 || $n == 2 ? qw(pool poolr dropin) : ()) {
        my (undef, @w) = worker_of($side);
        ($n ? $pid1{$side} : $pid0{$side}) = join ',', @w;
    }
    # the walk goes where it should: php-fpm's answers are compared
    ok t_cmp($r->{fpm}{code}, $steps[$n++][0], "php-fpm: $what: the walk's status");
    # the installer's request to the site got its answer: pretty
    # permalinks on, the home page's link to the first post by its date
    ok t_cmp($r->{pool}{nbody}, qr{"http://127\.0\.0\.1:PORT/DATE/hello-world/"},
             "pool: $what: the installer turned pretty permalinks on") if $n == 4;
    same_pairs(\@pairs, $what, $r, \&heads, \@diff);
});
t_debug("differs: $_") for @diff;

# The walk went through WordPress: the post made by the REST API, with
# the comment made by the form, is in the pool's side's database.
my $rows = mariadb_query($db, "SELECT p.post_title, c.comment_content FROM wp_pool.wp_posts p "
                         . "JOIN wp_pool.wp_comments c ON c.comment_post_ID = p.ID WHERE p.post_name = '$slug'");
ok t_cmp($rows, "From a test\tA comment, caf\xc3\xa9.\n", "the pool's side: the post (REST API) and its comment (form) are in its database");
my (undef, $h) = curl('-I', "http://127.0.0.1:$pport/?p=$id{pool}");
ok t_cmp($h->{location} // '', "http://127.0.0.1:$pport/$slug/", "the pool's side: ?p= redirects to the pretty permalink");
ok t_cmp($app{pool} =~ /^(?:\w{4} ){5}\w{4}$/ ? 'a password' : $app{pool}, 'a password',
         "the pool's side: the REST API made an application password");

# Two php-cgi workers each, started by the first step and the installer,
# which served every step (and the installer's request to the site).
for my $side (qw(pool poolr dropin)) {
    my ($p, @w) = worker_of($side);
    ok t_cmp(join(',', @w) . ($pid1{$side} =~ /^\Q$pid0{$side}\E,|,\Q$pid0{$side}\E$/ ? '' : ' (a new first)'),
             $pid1{$side}, "$side: the workers after the installer's step served the walk (pids $pid1{$side}; first $pid0{$side})");
    ok t_cmp($p ? "$p->{counters}{spawns} spawns, $p->{counters}{served} served" : 'no pool',
             '2 spawns, ' . (@steps + 1 + ($side eq 'pool')) . ' served', "$side: two php-cgi processes served every request");
}

php_stop($dir, $fpm);
mariadb_stop($db);
