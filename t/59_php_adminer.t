# Debian 12's adminer (4.8) through a php pool (CGIplusEngine php) direct
# and relayed, against php-fpm + mod_proxy_fcgi, and through mod_fcgid's
# PHP set-up (FcgidWrapper /usr/bin/php-cgi) on the fcgid-script drop-in
# against mod_fcgid itself (a second httpd), all with the
# package's conf-available/adminer.conf (Alias /adminer to its conf.php's
# directory) and conf.php, a copy with the login-password-less plugin on
# (Adminer refuses a database without a password otherwise), on an SQLite
# file for each side. The same walk, with a cookie jar each: the log-in
# page, a wrong and a right password, the database, a table's structure,
# select and edit pages, a row inserted by the edit form's POST with its
# CSRF token, a bad SQL command, an export, Adminer's own CSS, JS and icon
# (served by PHP: ?file=), HEAD, log-out. Status, headers (but the date,
# Server, the framing, cookies' and tokens' values) and bodies must match;
# one php-cgi process serves each side's walk.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(fresh_dir libexec private_conf private_start private_stop pid_in);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(walk same_pairs);
use JSON::PP ();

my $debconf = '/etc/apache2/conf-available/adminer.conf';
my $debphp = '/etc/adminer/conf.php';
my $ver = '4.8.1';
my $db = '/adminer/?sqlite=&username=&db=DB';
sub tok { ($_[0] =~ /name=["']token["'] value=["']([^"']+)["']/)[0] // '' }
my @steps = (
    sub { [GET => '/adminer/'] },
    sub { [POST => '/adminer/', '--data-urlencode', 'auth[driver]=sqlite', '--data-urlencode', 'auth[server]=',
           '--data-urlencode', 'auth[username]=', '--data-urlencode', 'auth[password]=wrong', '--data-urlencode', 'auth[db]=DB'] },
    sub { [POST => '/adminer/', '--data-urlencode', 'auth[driver]=sqlite', '--data-urlencode', 'auth[server]=',
           '--data-urlencode', 'auth[username]=', '--data-urlencode', 'auth[password]=s3cret', '--data-urlencode', 'auth[db]=DB'] },
    sub { [GET => $db] },
    sub { [GET => "$db&table=fruit"] },
    sub { [GET => "$db&select=fruit"] },
    sub { [GET => "$db&edit=fruit"] },
    sub { [POST => "$db&edit=fruit", '--data-urlencode', 'fields[name]=cherry', '--data-urlencode', 'fields[qty]=7',
           '--data-urlencode', 'save=1', '--data-urlencode', 'token=' . tok($_[0]{body})] },
    sub { [GET => "$db&select=fruit"] },
    sub { [GET => "$db&sql="] },
    sub { [POST => "$db&sql=", '--data-urlencode', 'query=SELECT nosuch FROM fruit;', '--data-urlencode', 'limit=',
           '--data-urlencode', 'token=' . tok($_[0]{body})] },
    sub { [GET => "$db&dump="] },
    sub { [POST => "$db&dump=", '--data-urlencode', 'output=text', '--data-urlencode', 'format=sql',
           '--data-urlencode', 'db_style=', '--data-urlencode', 'table_style=DROP+CREATE',
           '--data-urlencode', 'data_style=INSERT', '--data-urlencode', 'tables[]=fruit',
           '--data-urlencode', 'data[]=fruit', '--data-urlencode', 'token=' . tok($_[0]{body})] },
    sub { [GET => "/adminer/?file=default.css&version=$ver"] },
    sub { [GET => "/adminer/?file=functions.js&version=$ver"] },
    sub { [GET => "/adminer/?file=favicon.ico&version=$ver"] },
    sub { [HEAD => $db] },
    sub { [GET => $db] },
    sub { [POST => $db, '--data-urlencode', 'logout=Logout', '--data-urlencode', 'token=' . tok($_[0]{body})] },
    sub { [GET => $db] },
);
my @pairs = (['pool', 'fpm'], ['poolr', 'fpm'], ['dropin', 'fcgid']);
plan tests => 3 + 5 * @pairs * @steps + 2 + 4,
    need php_need('needs adminer and php-sqlite3 (Debian packages adminer, php-sqlite3)' =>
                  (-f $debconf && -f $debphp && -f '/usr/share/adminer/plugins/login-password-less.php'
                   && `php -m 2>/dev/null` =~ /^pdo_sqlite$/m),
                  'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so');

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/adminer";
my ($pport, $rport, $fport, $dport, $gport) = free_ports(5);
fresh_dir($dir);
my $sock = "$dir/fpm.sock";
my ($uid, $gid) = (getpwnam($vars->{user}))[2, 3];
my %port = (pool => $pport, poolr => $rport, fpm => $fport, dropin => $dport, fcgid => $gport);

# ---- Debian's conf.php, the plugin that lets a password-less SQLite file
# in on; a database a side
mkdir "$dir/conf";
my $hash = `php -r 'echo password_hash("s3cret", PASSWORD_DEFAULT);'`;
my $php = do { local $/; open my $fh, '<', $debphp or die "$debphp: $!"; <$fh> };
$php =~ s{(new AdminerVersionNoverify\(\),)}{$1\n        new AdminerLoginPasswordLess('$hash'),} or die 'conf.php: no plugin list';
write_file("$dir/conf/conf.php", $php, 0644);
for my $side (sort keys %port) {
    mkdir "$dir/$side";
    my $out = `php -r '\$d = new PDO("sqlite:$dir/$side/shop.db"); \$d->exec("CREATE TABLE fruit (id INTEGER PRIMARY KEY, name TEXT NOT NULL, qty INTEGER); INSERT INTO fruit (name, qty) VALUES (\\"apple\\", 3), (\\"pear\\", 5);") !== false or exit(1);' 2>&1`;
    die "the database for $side: $out" if $?;
    system('chown', '-R', "$uid:$gid", "$dir/$side") if $> == 0;
}

# ---- one httpd: Debian's adminer.conf, its directory ours; a virtual host
# a side
# Adminer counts failed log-ins in its temporary directory (the system's
# /tmp, shared by every run: 30 lock the address out for 30 minutes); each
# side gets the test's own, by upload_tmp_dir, which Adminer takes first
mkdir "$dir/$_" for qw(tmp ini);
chmod 01777, "$dir/tmp";
write_file("$dir/ini/adminer-test.ini", "upload_tmp_dir = $dir/tmp\n", 0644);
my $fpm = php_fpm($dir, 1, "php_admin_value[upload_tmp_dir] = $dir/tmp");
my $deb = do { local $/; open my $fh, '<', $debconf or die "$debconf: $!"; <$fh> };
$deb =~ s{/etc/adminer}{$dir/conf}g;
my $pool = "    AddHandler cgiplus-script .php\n    CGIplusEngine php\n    CGIplusMaxWorkers 1\n"
         . "    CGIplusSetEnv PHP_INI_SCAN_DIR :$dir/ini\n";
sub side {
    my ($side, $handler) = @_;
    return <<"CONF";
<VirtualHost 127.0.0.1:$port{$side}>
$deb
    <Directory $dir/conf>
$handler
    </Directory>
    <Location /status>
        SetHandler cgiplus-status
    </Location>
</VirtualHost>
CONF
}
# mod_fcgid's PHP set-up: the fcgid-script drop-in, and mod_fcgid itself
my $fcgid = "    Options +ExecCGI\n    AddHandler fcgid-script .php\n    FcgidWrapper /usr/bin/php-cgi .php\n";
php_httpd($dir, $pport, [$rport, $fport, $dport], [qw(dir authz_host)], <<"CONF", 'a private httpd with php pools, php-fpm and the drop-in');
FcgidMaxProcessesPerClass 1
FcgidInitialEnv PHP_INI_SCAN_DIR :$dir/ini
@{[side('dropin', $fcgid)]}
@{[side('pool', $pool)]}
@{[side('poolr', "$pool    CGIplusDirect off\n")]}
@{[side('fpm', "    <FilesMatch \".+\\\\.ph(?:ar|p|tml)\$\">\n        SetHandler \"proxy:unix:$sock|fcgi://localhost\"\n    </FilesMatch>\n")]}
CONF

mkdir "$dir/fcgid-httpd";
write_file("$dir/fcgid-httpd/httpd.conf", private_conf("$dir/fcgid-httpd", $gport, [qw(alias mime dir authz_host fcgid)], <<"CONF"), 0644);
TypesConfig /etc/mime.types
FcgidIPCDir $dir/fcgid-httpd/ipc
FcgidProcessTableFile $dir/fcgid-httpd/shm
FcgidMaxProcessesPerClass 1
FcgidInitialEnv PHP_INI_SCAN_DIR :$dir/ini
@{[side('fcgid', $fcgid)]}
CONF
ok t_cmp(private_start("$dir/fcgid-httpd/httpd.conf", $gport), 1, 'a private httpd with mod_fcgid');
END { private_stop("$dir/fcgid-httpd/httpd.pid") }

# What may differ: the port, the side's database path, the session's token,
# nonces, clock times and durations.
sub norm {
    my ($s, $port) = @_;
    $s =~ s/127\.0\.0\.1:$port/127.0.0.1:PORT/g;
    $s =~ s{[^'"&=\s]*(?:%2F|\\?/)(?:pool|poolr|fpm|dropin|fcgid)(?:%2F|\\?/)shop\.db}{DB}g;
    $s =~ s/(name=["']token["'] value=["'])[^"']+/$1TOKEN/g;
    $s =~ s/(nonce=["'])[^"']+/$1NONCE/g;
    $s =~ s/'\d+:\d+'\)/'TOKEN')/g;
    $s =~ s/\b\d+\.\d+ s\b/DURATION/g;
    $s =~ s/\b\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\b/TIME/g;
    $s =~ s{(<span class='time' title=')[^']*'>\d\d:\d\d:\d\d<}{$1DAY'>TIME<}g;
    return $s;
}
# The headers but the date, Server, the framing, Location (compared
# normalised above); cookies' values, the CSP nonce.
sub heads {
    my ($h) = @_;
    my @k = grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive|location)$/ } keys %$h;
    return join "\n", map { my $v = $h->{$_};
                            $v =~ s/=[^;]+/=VALUE/ if $_ eq 'set-cookie';
                            $v =~ s/(expires=)[^;]+/$1TIME/i if $_ eq 'set-cookie';
                            $v =~ s/'nonce-[^']+'/'nonce-NONCE'/g;
                            $v = 'TIME' if /^(expires|last-modified)$/ && $v !~ /1981/;
                            "$_: $v" } sort @k;
}
my ($nphp, @diff) = (0);
walk([map { my $st = $_; sub { my $r = $st->(@_); s/\bDB\b/$dir\/$_[1]\/shop.db/ for @$r; $r } } @steps],
     \%port, $dir, \&norm, sub {
    my ($what, $r) = @_;
    $nphp++;
    $what =~ s{\Q$dir\E/\w+/shop\.db}{DB}g;
    same_pairs(\@pairs, $what, $r, \&heads, \@diff);
});
t_debug("differs: $_") for @diff;

# The walk went through Adminer: the row the pool's side inserted is in its
# file.
my $rows = `php -r '\$d = new PDO("sqlite:$dir/pool/shop.db"); echo implode(",", \$d->query("SELECT name FROM fruit ORDER BY id")->fetchAll(PDO::FETCH_COLUMN));'`;
ok t_cmp($rows, 'apple,pear,cherry', "the pool's side inserted the row through Adminer's form");
my $invalid = do { local $/; my $fh; open($fh, '<', "$dir/tmp/adminer.invalid") ? <$fh> // '' : '' };
ok t_cmp(($invalid =~ /i:1;i:(\d+);/)[0] // 'none', 5,
         "the wrong password counted once a side, in the test's own directory (not /tmp)");

for my $side (qw(pool poolr dropin)) {
    my $st = eval { JSON::PP::decode_json((curl("http://127.0.0.1:$port{$side}/status?json"))[2]) } // {};
    my ($mine) = grep { ($_->{script} // '') eq '/usr/bin/php-cgi' && ($_->{site} // '') =~ /:$port{$side}\b/ }
                 @{ $st->{pools} // [] };
    ok t_cmp($mine ? "$mine->{counters}{spawns} spawn, $mine->{counters}{served} served" : 'no pool',
             "1 spawn, $nphp served", "$side: one php-cgi process served the walk");
}
sub slurp { open my $fh, '<', $_[0] or return ''; local $/; <$fh> // '' }
sub proc_pids { opendir my $d, '/proc' or return (); grep { /^\d+$/ } readdir $d }
sub children_of { my ($pp) = @_; grep { ((split ' ', (slurp("/proc/$_/stat") =~ s/^.*\)//sr))[1] // 0) == $pp } proc_pids() }
my @procs = grep { slurp("/proc/$_/cmdline") =~ /php-cgi/ } map { children_of($_) } children_of(pid_in("$dir/fcgid-httpd/httpd.pid"));
my @started = slurp("$dir/fcgid-httpd/error_log") =~ /mod_fcgid: server \S+ started/g;
ok t_cmp(scalar(@procs) . ' running, ' . scalar(@started) . ' started', '1 running, 1 started',
         "mod_fcgid: one php-cgi process served the walk");

php_stop($dir, $fpm);
