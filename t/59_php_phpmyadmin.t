# Issue 22: phpMyAdmin, one of the most common PHP applications behind
# Apache: Debian 12's phpmyadmin package (5.2) on a private MariaDB
# (PrivMariaDB), through a php pool (CGIplusEngine php) direct and
# relayed, and through mod_fcgid's PHP set-up (FcgidWrapper
# /usr/bin/php-cgi .php) on the fcgid-script drop-in, each compared with
# php-fpm + mod_proxy_fcgi (Debian's php8.2-fpm.conf way) in one private
# httpd, under the package's Alias /phpmyadmin.
#
# Debian's phpMyAdmin reads /etc/phpmyadmin/config.inc.php (with
# /etc/phpmyadmin/config-db.php, the system's database) and caches its
# templates in /var/lib/phpmyadmin/tmp: both paths are fixed in
# libraries/vendor_config.php (its "vendor" file), and no environment
# variable moves them. The test leaves /etc and /var alone (a file there
# needs root, is another user's, and would outlive a killed run): it serves
# a copy of /usr/share/phpmyadmin (links followed: the tree links into
# /usr/share/javascript by relative paths) whose vendor_config.php is
# Debian's but for those two paths, moved into the test's directory. Its
# config.inc.php names the private server's socket, and the session and
# temporary directories of the test's own.
#
# One database, "walk", the same on every side: each step is run on all
# four sides before the next, and a step that writes (an INSERT, an
# import) appends rows without keys, so that each side's answer is the
# same and every side sees the same rows afterwards. The walk, with a
# cookie jar a side: the log-in page, the cookie log-in's POST (its
# token; 302), the main page, the database's structure, a table browsed,
# a SELECT and an INSERT by the SQL form, the export of the database as an
# SQL file, the import of an SQL file (a multipart upload), the table the
# INSERT and the import wrote to, the server's status, the navigation
# tree by AJAX (ajax_request=true, JSON), the log-out (POST, its token;
# 302) and the log-in page after it. Status, Content-Type, Location, the
# other headers and the body must match at every step (what legitimately
# differs normalised, each said below); each php-cgi pool served its
# side's walk, the same pids throughout.
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

my $pma = '/usr/share/phpmyadmin';
my $pass = 'Walk-the-1-db';
my %tok;    # a side's token (phpMyAdmin's CSRF token), from its last page
sub tok { ('--data-urlencode', "token=" . ($tok{$_[0]} // '')) }
my $sqlurl = '/phpmyadmin/index.php?route=/import';
# The SQL form's POST of $q: the table's form (its db and table in the
# URL, as phpMyAdmin's links have them), or the database's
sub query {
    my ($side, $q, $table) = @_;
    my @t = $table ? ('--data-urlencode', "table=$table") : ();
    return [POST => "$sqlurl&db=walk" . ($table ? "&table=$table" : ''), tok($side), '--data-urlencode', 'server=1',
            '--data-urlencode', 'db=walk', @t, '--data-urlencode', "sql_query=$q", '--data-urlencode', 'pos=0',
            '--data-urlencode', 'is_js_confirmed=0', '--data-urlencode', 'SQL=Go'];
}
my $insert = "INSERT INTO visits (note, n) VALUES ('by the SQL form, caf\xc3\xa9', 1)";
# the log-in form, the user name remembered (its cookie) after the log-out
sub login { qr/<input type="text" name="pma_username" id="input_username" value="$_[0]"/ }
# [the status the step must get, what its Location (a redirect's) or
# body (php-fpm's) must show, the step]
my @steps = (
    [200, login(''), sub { [GET => '/phpmyadmin/'] }],
    [302, qr{^/phpmyadmin/index\.php\?route=/&route=%2F$}, sub {
            my ($sid) = $_[0]{body} =~ /name="set_session" value="([^"]*)"/;
            [POST => '/phpmyadmin/index.php?route=/', tok($_[1]), '--data-urlencode', 'route=/',
             '--data-urlencode', 'set_session=' . ($sid // ''), '--data-urlencode', 'pma_username=walker',
             '--data-urlencode', "pma_password=$pass", '--data-urlencode', 'server=1'] }],
    [200, qr/User:\s+walker\@localhost\n/, sub { [GET => '/phpmyadmin/index.php?route=/'] }],
    [200, qr/title="">books<.*title="">visits<.*2 tables/s,
     sub { [GET => '/phpmyadmin/index.php?route=/database/structure&server=1&db=walk'] }],
    [200, qr/Showing rows 0 -  2 \(3 total.*Le Petit Prince, caf\xc3\xa9.*&lt;b&gt;Tags&lt;\/b&gt; &amp; &quot;quotes&quot;/s,
     sub { [GET => '/phpmyadmin/index.php?route=/sql&server=1&db=walk&table=books&pos=0'] }],
    [200, qr/Showing rows 0 -  1 \(2 total.*Moby-Dick/s,
     sub { query($_[1], 'SELECT id, title FROM books WHERE added IS NOT NULL ORDER BY id', 'books') }],
    [200, qr/1 row inserted\./, sub { query($_[1], $insert) }],
    [200, qr/^-- phpMyAdmin SQL Dump\n/, sub {
            [POST => '/phpmyadmin/index.php?route=/export', tok($_[1]), map { ('--data-urlencode', $_) }
             'server=1', 'db=walk', 'export_type=database', 'export_method=quick', 'quick_or_custom=quick',
             'what=sql', 'table_select[]=books', 'table_select[]=visits', 'table_structure[]=books',
             'table_structure[]=visits', 'table_data[]=books', 'table_data[]=visits',
             'output_format=sendit', 'filename_template=@DATABASE@', 'charset=utf-8', 'compression=none',
             'sql_structure_or_data=structure_and_data', 'sql_create_table=something',
             'sql_type=INSERT', 'sql_insert_syntax=both', 'sql_max_query_size=50000', 'sql_compatibility=NONE',
             'sql_include_comments=something', 'sql_backquotes=something'] }],
    [200, qr/Import has been successfully finished, 2 queries executed\./, sub {
            [POST => $sqlurl, '-F', 'token=' . ($tok{$_[1]} // ''), '-F', 'server=1', '-F', 'db=walk',
             '-F', 'import_type=database', '-F', 'format=sql', '-F', 'charset_of_file=utf-8',
             '-F', 'sql_compatibility=NONE', '-F', 'sql_no_auto_value_on_zero=something',
             '-F', 'allow_interrupt=yes', '-F', 'skip_queries=0', '-F', 'fk_checks=1',
             '-F', "import_file=\@$_[2]/upload.sql;type=application/sql"] }],
    # each side's INSERT and import, twelve rows
    [200, qr/Showing rows 0 - 11 \(12 total/,
     sub { [GET => '/phpmyadmin/index.php?route=/sql&server=1&db=walk&table=visits&pos=0'] }],
    [200, qr/Network traffic since startup/, sub { [GET => '/phpmyadmin/index.php?route=/server/status&server=1'] }],
    # the navigation tree's node of the database, as its JavaScript asks
    # for it (the paths in base64: root.walk)
    [200, qr/^\{.*books.*visits.*"success":true/s, sub {
            [POST => '/phpmyadmin/index.php?route=/navigation&ajax_request=true', tok($_[1]),
             map { ('--data-urlencode', $_) } 'server=1', 'ajax_request=true', 'aPath=cm9vdA==.d2Fsaw==',
             'vPath=cm9vdA==.d2Fsaw==', 'pos=0', 'pos2_name=', 'pos2_value=', 'searchClause=', 'searchClause2='] }],
    [302, qr{^/phpmyadmin/index\.php\?route=/$}, sub {
            [POST => '/phpmyadmin/index.php?route=/logout', tok($_[1]), '--data-urlencode', 'server=1'] }],
    [200, login('walker'), sub { [GET => '/phpmyadmin/index.php?route=/'] }],
);
my @pairs = (['pool', 'fpm'], ['poolr', 'fpm'], ['dropin', 'fpm']);
plan tests => 3 + (2 + 5 * @pairs) * @steps + 4 + 2 * 3,
    need php_need('needs phpmyadmin and mariadb-server (Debian packages phpmyadmin, mariadb-server)' =>
                  (-f "$pma/libraries/vendor_config.php" && mariadbd_bin()
                   && `php -m 2>/dev/null` =~ /^mysqli$/m));

my $vars = Apache::Test::config()->{vars};
my $dir = private_dir('phpmyadmin');
my ($pport, $rport, $dport, $fport) = free_ports(4);
my %port = (pool => $pport, poolr => $rport, dropin => $dport, fpm => $fport);

# ---- a private MariaDB (PrivMariaDB): the database and its user
my $db = mariadb_start($dir);
ok t_cmp(mariadb_sql($db, <<"SQL"), 1, "a private mariadbd (pid $db->{pid}) on $db->{sock}, the database walk");
CREATE DATABASE walk CHARACTER SET utf8mb4;
CREATE TABLE walk.books (id INT NOT NULL PRIMARY KEY, title VARCHAR(100) NOT NULL, added DATE);
INSERT INTO walk.books VALUES (1, 'Le Petit Prince, caf\xc3\xa9', '2020-01-02'), (2, 'Moby-Dick', '2020-02-03'),
    (3, '<b>Tags</b> & "quotes"', NULL);
CREATE TABLE walk.visits (note VARCHAR(64) NOT NULL, n INT NOT NULL);
CREATE USER walker\@localhost IDENTIFIED BY '$pass';
GRANT ALL ON walk.* TO walker\@localhost;
SQL

# ---- the copy, its vendor_config.php naming the test's files
system('cp', '-rL', $pma, "$dir/phpmyadmin") == 0 or die "cp $pma";
my $vendor = "$dir/phpmyadmin/libraries/vendor_config.php";
my $vc = do { local $/; open my $fh, '<', $vendor or die "$vendor: $!"; <$fh> };
$vc =~ s{'/etc/phpmyadmin/config\.inc\.php'}{'$dir/config.inc.php'} or die "$vendor: no configFile";
$vc =~ s{'/var/lib/phpmyadmin/tmp/'}{'$dir/tmp/'} or die "$vendor: no tempDir";
write_file($vendor, $vc, 0644);
mkdir "$dir/$_" for qw(tmp sessions);
# the web server's, as Debian's /var/lib/phpmyadmin/tmp
if ($> == 0) {
    my ($uid, $gid) = (getpwnam($vars->{user}))[2, 3];
    chown $uid, $gid, "$dir/tmp", "$dir/sessions";
}
write_file("$dir/config.inc.php", <<"PHP", 0644);
<?php
// Debian's makes one at install (/var/lib/phpmyadmin/blowfish_secret.inc.php)
\$cfg['blowfish_secret'] = 'a-test-secret-of-32-bytes-length';
\$cfg['Servers'][1]['auth_type'] = 'cookie';
\$cfg['Servers'][1]['host'] = 'localhost';
\$cfg['Servers'][1]['socket'] = '$db->{sock}';
\$cfg['TempDir'] = '$dir/tmp';
\$cfg['SessionSavePath'] = '$dir/sessions';
// as Debian's config.inc.php
\$cfg['UploadDir'] = '';
\$cfg['SaveDir'] = '';
PHP
# A file to import, with a comment and two statements
write_file("$dir/upload.sql", "-- two rows, by an upload\nINSERT INTO visits (note, n) VALUES ('imported', 2);\n"
                              . "INSERT INTO visits (note, n) VALUES ('imported, caf\xc3\xa9', 3);\n", 0644);

# ---- one httpd: a virtual host a side
my $fpm = php_fpm($dir, 2);
php_four_sides($dir, \%port, "$dir/phpmyadmin", [qw(dir)], undef, <<"CONF");
# Debian's /etc/phpmyadmin/apache.conf, the copy's directory for its own
Alias /phpmyadmin $dir/phpmyadmin
<Directory $dir/phpmyadmin>
    Options SymLinksIfOwnerMatch
    DirectoryIndex index.php
    Require all granted
</Directory>
<Directory $dir/phpmyadmin/templates>
    Require all denied
</Directory>
<Directory $dir/phpmyadmin/libraries>
    Require all denied
</Directory>
CONF

# What may differ between the sides: the port; phpMyAdmin's token (32 hex
# digits), the session's id, and a query's signature in links (an HMAC
# with the session's random key, 64 hex digits); the random number that
# a result table's element ids carry (Display\Results' unique_id); times
# (a query's, the server's uptime) and dates (the export's, the server's
# start); the server's traffic and connection counters on its status
# page, which every request of every side moves.
sub norm {
    my ($s, $port) = @_;
    $s =~ s/127\.0\.0\.1(:|%3A)$port\b/127.0.0.1${1}PORT/g;
    $s =~ s/\b[0-9a-f]{32}\b/TOKEN/g;
    $s =~ s/\b(sql_signature(?:=|%3D|" value="))[0-9a-f]{64}\b/$1SIG/g;
    $s =~ s/(name="set_session" value=")[^"]*/$1SID/g;
    if (my ($uid) = $s =~ /data-uniqueId="(\d+)"/) { $s =~ s/\Q$uid\E/UID/g }
    $s =~ s/(Query took )\d+\.\d+( seconds)/$1T$2/g;
    $s =~ s/(has been running for )[^.]+/$1TIME/g;
    $s =~ s/\b[A-Z][a-z]{2} \d\d, 20\d\d at \d\d:\d\d [AP]M\b/DATE/g;
    $s =~ s/(Network traffic since startup: )[\d.]+ \w+/$1N/g;
    $s =~ s{(<th scope="row">(?:Received|Sent|Total)</th>\s*<td[^>]*>)[^<]*(</td>\s*<td[^>]*>)[^<]*}{$1N$2N}g;
    $s =~ s{(<th>Total</th>\s*<td[^>]*>)[^<]*(</td>\s*<td[^>]*>)[^<]*}{$1N$2N}g;
    return $s;
}
# The headers but the date, Server, the framing, Location (compared
# above); cookies' values and expiry times; Expires and Last-Modified
# (phpMyAdmin's: the clock's time).
sub heads {
    my ($h) = @_;
    my @k = grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive|location)$/ } keys %$h;
    return join "\n", map { my $v = $h->{$_};
                            $v =~ s/127\.0\.0\.1:\d+/127.0.0.1:PORT/g;
                            $v =~ s/=[^;]+/=VALUE/ if $_ eq 'set-cookie';
                            $v =~ s/(expires=)[^;]+/$1TIME/i if $_ eq 'set-cookie';
                            $v = 'TIME' if $_ eq 'expires' || $_ eq 'last-modified';
                            "$_: $v" } sort @k;
}

my $status = "http://127.0.0.1:$pport/cgiplus-status";
sub worker_of { return php_workers($status, $port{$_[0]}) }
my (%pid0, @diff, %export);
my $n = 0;
walk([map { my $s = $_->[2]; sub { $s->(@_, $dir) } } @steps], \%port, $dir, \&norm, sub {
    my ($what, $r) = @_;
    for my $side (sort keys %port) {
        my $body = $r->{$side}{body};
        # a page's token, the one of its forms (and of its JSON)
        $tok{$side} = $1 if $body =~ /name="token" value="([0-9a-f]{32})"/ || $body =~ /"token":"([0-9a-f]{32})"/;
    }
    for my $side ($n == 0 ? qw(pool poolr dropin) : ()) {
        my (undef, @w) = worker_of($side);
        $pid0{$side} = join ',', @w;
    }
    %export = map { ($_ => $r->{$_}) } keys %$r if $what =~ /route=\/export/;
    # the walk goes where it should: php-fpm's answers are compared
    ok t_cmp($r->{fpm}{code}, $steps[$n][0], "php-fpm: $what: the walk's status");
    ok t_cmp($r->{fpm}{$steps[$n][0] =~ /^3/ ? 'loc' : 'body'}, $steps[$n][1], "php-fpm: $what: the page the walk wants");
    $n++;
    same_pairs(\@pairs, $what, $r, \&heads, \@diff);
});
t_debug("differs: $_") for @diff;

# The walk went through phpMyAdmin: each side's INSERT and import are in
# the database, and the export has the tables and their rows.
ok t_cmp(mariadb_query($db, 'SELECT note, COUNT(*) FROM walk.visits GROUP BY note ORDER BY note'),
         "by the SQL form, caf\xc3\xa9\t4\nimported\t4\nimported, caf\xc3\xa9\t4\n",
         'every side: the INSERT and the import are in the database');
ok t_cmp($export{pool}{h}{'content-disposition'} // '', qr/^attachment; filename="walk\.sql"$/,
         "the pool's side: the export is a download, walk.sql");
my $row1 = qr/\(1, 'Le Petit Prince, caf\xc3\xa9', '2020-01-02'\)/;
ok t_cmp($export{pool}{body}, qr/CREATE TABLE `books`.*INSERT INTO `books` \(`id`, `title`, `added`\) VALUES\s*$row1/s,
         "the pool's side: the export has the table books and its rows");
ok t_cmp(scalar(() = $export{pool}{body} =~ /\('by the SQL form, caf\xc3\xa9', 1\)/g), 4,
         "the pool's side: the export has the four sides' INSERTs");

# The php-cgi workers that served the first step served the walk
for my $side (qw(pool poolr dropin)) {
    my ($p, @w) = worker_of($side);
    ok t_cmp(join(',', @w), $pid0{$side}, "$side: the workers of the first step served the walk (pids $pid0{$side})");
    ok t_cmp($p ? "$p->{counters}{spawns} spawns, $p->{counters}{served} served" : 'no pool',
             scalar(@w) . ' spawns, ' . @steps . ' served', "$side: its php-cgi processes served every request");
}

php_stop($dir, $fpm);
mariadb_stop($db);
