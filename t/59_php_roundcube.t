# Debian 12's roundcube (1.6, roundcube-core) on SQLite, through a php
# pool (CGIplusEngine php) direct and relayed, against php-fpm +
# mod_proxy_fcgi (Debian's php8.2-fpm.conf way), and through mod_fcgid's
# PHP set-up (FcgidWrapper /usr/bin/php-cgi) on the fcgid-script drop-in
# against mod_fcgid itself (a second httpd), all with the
# package's /etc/roundcube/apache.conf unedited (its tree's .htaccess
# applies: mod_rewrite's refusals, mod_expires, mod_headers, mod_deflate),
# its commented "Alias /roundcube", and for each side a configuration
# directory of its own (ROUNDCUBE_CONFIG_DIR: Debian's files, a
# config.inc.php naming the side's SQLite database, its temp and log
# directories, an IMAP port nobody listens on). The same walk, with a
# cookie jar each: the log-in page, a log-in with the form's token (the
# IMAP server refuses: Roundcube's failed log-in), one without a token,
# the keep-alive and a task that needs a session, the skin's CSS, JS and
# images (static, beside PHP), the favicon by rewrite, the refused
# directories, a missing .php, HEAD, gzip, log-out. Status, headers (but
# the date, Server, the framing and the session's cookie and token) and
# bodies must match (php-fpm's own 404 for a missing .php aside); one
# php-cgi process serves each side's walk.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(fresh_dir libexec private_conf private_start private_stop pid_in);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(walk same_answer);
use JSON::PP ();

my $debconf = '/etc/roundcube/apache.conf';
my @steps = (
    sub { [GET => '/roundcube/'] },
    sub { [GET => '/roundcube/?_task=login'] },
    sub { [POST => '/roundcube/?_task=login', '--data', '_token=' . tok($_[0]{body})
                   . '&_task=login&_action=login&_timezone=UTC&_url=&_user=alice&_pass=wrong'] },
    sub { [POST => '/roundcube/?_task=login', '--data', '_task=login&_action=login&_user=alice&_pass=wrong'] },
    sub { [GET => '/roundcube/?_task=login&_action=keep-alive&_remote=1', '-H', 'X-Roundcube-Request: ' . tok($_[0]{body})] },
    sub { [GET => '/roundcube/?_task=mail&_mbox=INBOX'] },
    sub { [GET => '/roundcube/?_task=settings&_action=about'] },
    sub { [GET => '/roundcube/skins/elastic/styles/styles.min.css'] },
    sub { [GET => '/roundcube/program/js/app.min.js'] },
    sub { [GET => '/roundcube/program/js/app.min.js', '-H', "If-None-Match: $_[0]{etag}"] },
    sub { [GET => '/roundcube/skins/elastic/images/logo.svg'] },
    sub { [GET => '/roundcube/favicon.ico'] },
    sub { [GET => '/roundcube/config/config.inc.php'] },
    sub { [GET => '/roundcube/SQL/sqlite.initial.sql'] },
    sub { [GET => '/roundcube/README.md'] },
    sub { [GET => '/roundcube/nosuch.php'] },
    sub { [HEAD => '/roundcube/'] },
    sub { [GET => '/roundcube/', '--compressed'] },
    sub { [GET => '/roundcube/?_task=logout&_token=' . tok($_[0]{body})] },
    sub { [GET => '/roundcube/?_task=login'] },
);
my @pairs = (['pool', 'fpm'], ['poolr', 'fpm'], ['dropin', 'fcgid']);
plan tests => 3 + 5 * @pairs * @steps + 2 + 4,
    need php_need('needs roundcube and php-sqlite3 (Debian packages roundcube-core, php-sqlite3)' =>
                  (-f '/var/lib/roundcube/public_html/index.php' && -f $debconf
                   && `php -m 2>/dev/null` =~ /^pdo_sqlite$/m),
                  'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so');

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/roundcube";
my ($pport, $rport, $fport, $dport, $gport, $imap) = free_ports(6);
fresh_dir($dir);
my $sock = "$dir/fpm.sock";
my ($uid, $gid) = (getpwnam($vars->{user}))[2, 3];
my %port = (pool => $pport, poolr => $rport, fpm => $fport, dropin => $dport, fcgid => $gport);

# the session's form token (the log-in form's, or the page's JS env's)
sub tok {
    my ($b) = @_;
    return ($b =~ /name="_token" value="([^"]+)"/)[0] // ($b =~ /"request_token":"([^"]+)"/)[0] // '';
}

# ---- a configuration and a database for each side
for my $side (sort keys %port) {
    my $w = "$dir/$side";
    mkdir $w;
    mkdir "$w/$_" for qw(temp logs);
    system('cp', '-rL', '/etc/roundcube', "$w/config") == 0 or die "cp /etc/roundcube";
    write_file("$w/config/config.inc.php", <<"PHP", 0644);
<?php
\$config = [];
\$config['db_dsnw'] = 'sqlite:///$w/roundcube.db?mode=0646';
\$config['imap_host'] = ['127.0.0.1:$imap'];
\$config['smtp_host'] = '127.0.0.1:$imap';
\$config['support_url'] = '';
\$config['product_name'] = 'Roundcube Webmail';
\$config['des_key'] = 'a-fixed-24-byte-des-key!';
\$config['plugins'] = [];
\$config['skin'] = 'elastic';
\$config['enable_spellcheck'] = false;
\$config['temp_dir'] = '$w/temp/';
\$config['log_dir'] = '$w/logs/';
PHP
    my $out = `php -r '\$d = new PDO("sqlite:$w/roundcube.db"); \$d->exec(file_get_contents("/usr/share/roundcube/SQL/sqlite.initial.sql")) !== false or exit(1);' 2>&1`;
    die "roundcube's schema for $side: $out" if $?;
    system('chown', '-R', "$uid:$gid", $w) if $> == 0;
}

# ---- one httpd: Debian's apache.conf once; a virtual host a side
my $fpm = php_fpm($dir, 1);
my $pool = <<'CONF';
    <Directory /var/lib/roundcube/public_html/>
        AddHandler cgiplus-script .php
        CGIplusEngine php
        CGIplusMaxWorkers 1
    </Directory>
CONF
# mod_fcgid's PHP set-up: the fcgid-script drop-in, and mod_fcgid itself
my $fcgid = <<'CONF';
    <Directory /var/lib/roundcube/public_html/>
        Options +ExecCGI
        AddHandler fcgid-script .php
        FcgidWrapper /usr/bin/php-cgi .php
    </Directory>
    FcgidMaxProcessesPerClass 1
CONF
sub side {
    my ($side, $handler) = @_;
    return <<"CONF";
<VirtualHost 127.0.0.1:$port{$side}>
    Alias /roundcube /var/lib/roundcube/public_html
    SetEnv ROUNDCUBE_CONFIG_DIR $dir/$side/config
$handler
    <Location /status>
        SetHandler cgiplus-status
        Require all granted
    </Location>
</VirtualHost>
CONF
}
my @mods = qw(dir authz_host rewrite expires headers deflate env setenvif filter);
my $common = <<"CONF";
DirectoryIndex index.php index.html
# Debian's apache2.conf
<Directory />
    Options FollowSymLinks
    AllowOverride None
    Require all denied
</Directory>
Include $debconf
CONF
php_httpd($dir, $pport, [$rport, $fport, $dport], \@mods, <<"CONF", 'a private httpd with php pools, php-fpm and the drop-in');
$common
@{[side('dropin', $fcgid)]}
@{[side('pool', $pool)]}
@{[side('poolr', "$pool    CGIplusDirect off\n")]}
@{[side('fpm', "    <FilesMatch \".+\\\\.ph(?:ar|p|tml)\$\">\n        SetHandler \"proxy:unix:$sock|fcgi://localhost\"\n    </FilesMatch>\n")]}
CONF

mkdir "$dir/fcgid-httpd";
my $lib = libexec();
write_file("$dir/fcgid-httpd/httpd.conf", private_conf("$dir/fcgid-httpd", $gport, [@mods, qw(alias mime fcgid)], <<"CONF"), 0644);
TypesConfig /etc/mime.types
FcgidIPCDir $dir/fcgid-httpd/ipc
FcgidProcessTableFile $dir/fcgid-httpd/shm
$common
@{[side('fcgid', $fcgid)]}
CONF
ok t_cmp(private_start("$dir/fcgid-httpd/httpd.conf", $gport), 1, 'a private httpd with mod_fcgid');
END { private_stop("$dir/fcgid-httpd/httpd.pid") }

# What may differ: the port, the session's token and cookie, clock times.
sub norm {
    my ($s, $port) = @_;
    $s =~ s/127\.0\.0\.1:$port/127.0.0.1:PORT/g;
    my $t = tok($s);
    $s =~ s/\Q$t\E/TOKEN/g if length $t;
    $s =~ s/\b[0-9a-zA-Z]{32}\b/TOKEN/g;
    $s =~ s/\b1[6-9]\d{8}\b/EPOCH/g;
    return $s;
}
# The headers but the date, Server, the framing; the session cookie's value.
sub heads {
    my ($h) = @_;
    my @k = grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive)$/ } keys %$h;
    return join "\n", map { my $v = $h->{$_};
                            $v =~ s/=[^;=]{16,}(;|$)/=VALUE$1/ if $_ eq 'set-cookie';
                            $v =~ s/(expires=)[^;]+/$1TIME/i if $_ eq 'set-cookie';
                            $v = 'TIME' if /^(expires|last-modified)$/ && $v =~ /GMT$/ && $v !~ /1981/;
                            "$_: $v" } sort @k;
}
my (@diff, $php);
walk(\@steps, \%port, $dir, \&norm, sub {
    my ($what, $r) = @_;
    $php++ if $what =~ m{^\w+ /roundcube/(?:\?|$)};
    $what =~ s/_token=[^&]*/_token=.../;
    for my $pair (@pairs) {
        my ($me, $peer) = @$pair;
        if ($what =~ /nosuch\.php/ && $peer eq 'fpm') {
            # docs/APPS.md ("Where php-fpm and mod_fcgid differ"): a .php
            # that does not exist is php-fpm's own 404 "File not found.",
            # httpd's on a php pool, as under mod_php and mod_fcgid
            my $o = $r->{$me};
            ok t_cmp($o->{code}, $r->{$peer}{code}, "$me: $what: the same status");
            ok t_cmp($r->{$peer}{body}, "File not found.\n", "$me: $what: php-fpm's own 404");
            ok t_cmp($o->{type}, 'text/html; charset=iso-8859-1', "$me: $what: httpd's 404 page");
            ok t_cmp($o->{body}, qr{<h1>Not Found</h1>}, "$me: $what: httpd's 404 page's body");
            ok t_cmp($o->{loc}, '', "$me: $what: no Location");
            next;
        }
        same_answer("$me: $what", $me, $r->{$me}, $r->{$peer}, $peer eq 'fcgid' ? 'mod_fcgid' : 'php-fpm');
        ok t_cmp(heads($r->{$me}{h}), heads($r->{$peer}{h}), "$me: $what: the same other headers");
        push @diff, "$me: $what" if $r->{$me}{code} ne $r->{$peer}{code} || $r->{$me}{nbody} ne $r->{$peer}{nbody};
    }
});
t_debug("differs: $_") for @diff;

# The walk went through Roundcube: its log-in page, and its failed log-in
# (the IMAP server refused) on record in the side's log.
my (undef, undef, $b) = curl("http://127.0.0.1:$pport/roundcube/");
ok t_cmp($b =~ /<form id="login-form"/ ? 'login form' : substr($b, 0, 200), 'login form', "the pool's first page is Roundcube's log-in");
my $errors = do { local $/; my $fh; open($fh, '<', "$dir/pool/logs/errors.log") ? <$fh> // '' : '' };
ok t_cmp($errors, qr/Login failed for alice/, "Roundcube logged the failed log-in on the pool's side");

# One php-cgi worker each, which served its side's whole walk.
for my $side (qw(pool poolr dropin)) {
    my $st = eval { JSON::PP::decode_json((curl("http://127.0.0.1:$port{$side}/status?json"))[2]) } // {};
    my @p = grep { ($_->{script} // '') eq '/usr/bin/php-cgi' } @{ $st->{pools} // [] };
    my ($mine) = grep { ($_->{site} // '') =~ /:$port{$side}\b/ } @p;
    ok t_cmp($mine ? "$mine->{counters}{spawns} spawn, $mine->{counters}{served} served" : 'no pool',
             "1 spawn, " . ($php + ($side eq 'pool')) . ' served', "$side: one php-cgi process served the walk's PHP requests");
}
sub slurp { open my $fh, '<', $_[0] or return ''; local $/; <$fh> // '' }
sub proc_pids { opendir my $d, '/proc' or return (); grep { /^\d+$/ } readdir $d }
sub children_of { my ($pp) = @_; grep { ((split ' ', (slurp("/proc/$_/stat") =~ s/^.*\)//sr))[1] // 0) == $pp } proc_pids() }
my @procs = grep { slurp("/proc/$_/cmdline") =~ /php-cgi/ } map { children_of($_) } children_of(pid_in("$dir/fcgid-httpd/httpd.pid"));
my @started = slurp("$dir/fcgid-httpd/error_log") =~ /mod_fcgid: server \S+ started/g;
ok t_cmp(scalar(@procs) . ' running, ' . scalar(@started) . ' started', '1 running, 1 started',
         "mod_fcgid: one php-cgi process served the walk");

php_stop($dir, $fpm);
