# Issue 22, part 3: a second real PHP application, Debian's mediawiki
# package on SQLite (no database server), through php-cgi pool workers
# (CGIplusEngine php) and through php-fpm + mod_proxy_fcgi side by side, as
# Debian sets it up: its conf-available/mediawiki.conf (Alias /mediawiki to
# /var/lib/mediawiki, the package's tree of symbolic links; AllowOverride
# All, so the tree's .htaccess files apply), unedited, in one private httpd.
# Each virtual host adds only its handler and its own wiki (MW_CONFIG_FILE:
# a LocalSettings.php and SQLite files made by the package's install.php):
# one mod_cgiplus side "AddHandler cgiplus-script .php" and "CGIplusEngine
# php", another mod_fcgid's PHP set-up ("AddHandler fcgid-script .php",
# "FcgidWrapper /usr/bin/php-cgi .php", Options +ExecCGI: the drop-in, with
# mod_fcgid not loaded), the php-fpm side Debian's php8.2-fpm.conf way; both
# mod_cgiplus sides are compared with php-fpm. The same walk, with a
# cookie jar each: pages by title and by path, ResourceLoader's CSS and JS,
# the API (GET and POST), special pages, search, a 404, a refused
# directory, a log-in with the form's token, an edit saved by POST, its
# page, raw text, history and diff. Status, type, Location and body (tokens,
# request ids and clock times aside) must match at every step.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(fresh_dir);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use AppTest qw(curl);
use SideBySide qw(walk same_answer php_pool_served_all);

my $debconf = '/etc/apache2/conf-available/mediawiki.conf';
my $nsteps = 22;
plan tests => 6 + 8 * $nsteps,
    need php_need('needs mediawiki and php-sqlite3 (Debian packages mediawiki, php-sqlite3)' =>
                  (-f '/usr/share/mediawiki/maintenance/install.php' && -f $debconf &&
                   `php -m 2>/dev/null` =~ /^pdo_sqlite$/m));

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/mediawiki";
my ($cport, $dport, $fport) = free_ports(3);
fresh_dir($dir);
my $sock = "$dir/fpm.sock";
my ($uid, $gid) = (getpwnam($vars->{user}))[2, 3];
my $pass = 'Walk-the-1-wiki';

# ---- a wiki of its own for each side, made by the package's installer
for my $side (qw(cgiplus fcgid fpm)) {
    my $w = "$dir/$side";
    mkdir $w;
    mkdir "$w/$_" for qw(data cache);
    my $out = `php /usr/share/mediawiki/maintenance/install.php --dbtype=sqlite --dbpath=$w/data --dbname=wiki --server=http://127.0.0.1 --scriptpath=/mediawiki --lang=en --pass=$pass --confpath=$w TestWiki Admin 2>&1`;
    die "install.php for $side: $out" unless -f "$w/LocalSettings.php";
    open my $ls, ">>", "$w/LocalSettings.php" or die;
    # the package's cache directory is root's; a failure shows its cause
    print $ls "\$wgCacheDirectory = '$w/cache';\n\$wgShowExceptionDetails = true;\n";
    close $ls;
    # Parser and page caches stay in the side's SQLite files; clock times
    # in the output are normalised below.
    system('chown', '-R', "$uid:$gid", $w) if $> == 0;
}

# ---- a private php-fpm, as many children as the pool has workers
my $fpm = php_fpm($dir, 2);

open my $dc, '<', $debconf or die "$debconf: $!";
my $debian = do { local $/; <$dc> };
close $dc;
php_httpd($dir, $cport, [$dport, $fport], [qw(dir authz_host access_compat env)], <<"CONF", 'a private httpd with the three sides');
DirectoryIndex index.php index.html
$debian
<VirtualHost 127.0.0.1:$cport>
<Location /mediawiki>
    SetEnv MW_CONFIG_FILE $dir/cgiplus/LocalSettings.php
    AddHandler cgiplus-script .php
    CGIplusEngine php
    CGIplusMaxWorkers 2
</Location>
<Location /status>
    SetHandler cgiplus-status
</Location>
</VirtualHost>
<VirtualHost 127.0.0.1:$dport>
<Location /mediawiki>
    SetEnv MW_CONFIG_FILE $dir/fcgid/LocalSettings.php
    Options +ExecCGI
    AddHandler fcgid-script .php
    FcgidWrapper /usr/bin/php-cgi .php
</Location>
FcgidMaxProcessesPerClass 2
</VirtualHost>
<VirtualHost 127.0.0.1:$fport>
<Location /mediawiki>
    SetEnv MW_CONFIG_FILE $dir/fpm/LocalSettings.php
</Location>
<FilesMatch ".+\\.php\$">
    SetHandler "proxy:unix:$sock|fcgi://localhost"
</FilesMatch>
</VirtualHost>
CONF

# ---- the walk: each step a request made from what the side answered before
sub unent { my $s = shift; $s =~ s/&#(\d+);/chr $1/ge; $s =~ s/&quot;/"/g; $s =~ s/&lt;/</g;
            $s =~ s/&gt;/>/g; $s =~ s/&amp;/&/g; return $s }
# The hidden fields of the form whose action contains $act, attributes in
# any order, as curl arguments.
sub hidden {
    my ($body, $act) = @_;
    my ($form) = $body =~ m{(<form[^>]*action="[^"]*\Q$act\E[^"]*".*?</form>)}s;
    my @a;
    for my $in (($form // '') =~ /<input\b([^>]*)>/g) {
        next unless $in =~ /type="hidden"/;
        my ($n) = $in =~ /name="([^"]*)"/;
        my ($v) = $in =~ /value="([^"]*)"/;
        push @a, '--data-urlencode', unent($n) . '=' . unent($v // '') if defined $n;
    }
    return @a;
}
my $text = "== From a test ==\nSaved through '''POST''', caf\xc3\xa9 & <nowiki><tags></nowiki>.\n";
my $idx = '/mediawiki/index.php';
my @steps = (
    sub { [GET => '/mediawiki/'] },
    sub { [GET => "$idx?title=Main_Page"] },
    sub { [GET => "$idx/Main_Page"] },
    sub { [GET => '/mediawiki/load.php?lang=en&modules=startup&only=scripts&raw=1&skin=vector'] },
    sub { [GET => '/mediawiki/load.php?lang=en&modules=skins.vector.styles.legacy&only=styles&skin=vector'] },
    sub { [GET => '/mediawiki/api.php?action=query&meta=siteinfo&siprop=general|namespaces&format=json'] },
    sub { [POST => '/mediawiki/api.php', '--data', 'action=parse&text=%27%27%27bold%27%27%27+[[Main+Page]]&contentmodel=wikitext&format=json&formatversion=2'] },
    sub { [GET => "$idx?title=Special:Version"] },
    sub { [GET => "$idx?title=Special:AllPages"] },
    sub { [GET => "$idx?search=MediaWiki&title=Special:Search&fulltext=1"] },
    sub { [GET => "$idx?title=No_such_page"] },
    sub { [GET => '/mediawiki/includes/'] },
    sub { [HEAD => "$idx?title=Main_Page"] },
    sub { [GET => "$idx?title=Special:UserLogin"] },
    sub { [POST => "$idx?title=Special:UserLogin", hidden($_[0]{body}, 'Special:UserLogin'),
           '--data-urlencode', 'wpName=Admin', '--data-urlencode', "wpPassword=$pass",
           '--data-urlencode', 'wploginattempt=Log in'] },
    sub { [GET => "$idx?title=Sandbox&action=edit"] },
    sub { [POST => "$idx?title=Sandbox&action=submit", hidden($_[0]{body}, 'action=submit'),
           '--data-urlencode', "wpTextbox1=$text", '--data-urlencode', 'wpSummary=a test edit',
           '--data-urlencode', 'wpSave=Save page'] },
    sub { [GET => "$idx?title=Sandbox"] },
    sub { [GET => "$idx?title=Sandbox&action=raw"] },
    sub { [GET => "$idx?title=Sandbox&action=history"] },
    sub { [GET => "$idx?title=Special:RecentChanges&days=30&limit=50"] },
    sub { [GET => '/mediawiki/api.php?action=query&list=recentchanges&rcprop=title|user|comment|sizes&format=json'] },
);
die 'step count' unless @steps == $nsteps;

# What may differ between the sides: the port, session tokens and ids,
# request ids, clock times, the time a page took, and PHP_SAPI (which
# Special:Version and the API show).
sub norm {
    my ($s, $port) = @_;
    $s =~ s/127\.0\.0\.1:$port/127.0.0.1:PORT/g;
    $s =~ s/\b(?:cgi|fpm)-fcgi\b/SAPI/g; # PHP_SAPI, php-cgi's or php-fpm's
    $s =~ s/\b[0-9a-f]{32,40}\b/HEX/g;
    $s =~ s/"wgRequestId":"[^"]*"/"wgRequestId":"ID"/g;
    $s =~ s/"wgBackendResponseTime":\d+/"wgBackendResponseTime":N/g;
    $s =~ s/"wgUserRegistration":\d+/"wgUserRegistration":N/g; # each install's own second
    $s =~ s/\b20\d{12}\b/TS14/g;
    $s =~ s/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ?\b/ISO/g;
    $s =~ s/\b\d\d:\d\d, \d{1,2} [A-Z][a-z]+ \d{4}\b/TIME/g;
    # (and URL-encoded: RecentChanges' "Show new changes starting from"
    # link, fromFormatted=15%3A03%2C+7+December+2026, the minute of the request)
    $s =~ s/(fromFormatted=)\d\d%3A\d\d%2C\+\d{1,2}\+[A-Z][a-z]+\+\d{4}(?=&)/$1TIME/g;
    $s =~ s/\b\d{1,2} [A-Z][a-z]+ \d{4}\b/DATE/g;
    $s =~ s/\b[0-2]\d:[0-5]\d\b/HH:MM/g; # "last edited on ... at 10:25", lists of changes
    $s =~ s/(CPU time usage|Real time usage|[Tt]ransclusion expansion time report \(%,ms,calls,template\))[^\n]*/$1 .../g;
    $s =~ s/("(?:cputime|walltime|timingprofile)":)(?:"[^"]*"|\[[^\]]*\])/$1 X/g;
    $s =~ s/<!-- (?:Served|Saved|Cached)[^>]*-->//g;
    $s =~ s/\b\d+\.\d{3} +\d+\.\d{3} +\d+(?:\.\d+)? +-total\b/T/g;
    $s =~ s/\b\d\.\d{3} seconds\b/N seconds/g;
    return $s;
}
my $last = walk(\@steps, { cgiplus => $cport, fcgid => $dport, fpm => $fport }, $dir, \&norm, sub {
    my ($what, $r) = @_;
    same_answer($what . ($_ eq 'fcgid' ? ' (fcgid-script)' : ''), $_, $r->{$_}, $r->{fpm}) for qw(cgiplus fcgid);
});

# The walk went through the application, and on persistent workers.
my (undef, undef, $raw) = curl("http://127.0.0.1:$cport$idx?title=Sandbox&action=raw");
ok t_cmp($raw, $text =~ s/\n\z//r, 'the page saved through php-cgi workers holds the text as posted');
ok t_cmp($last->{$_}{body}, qr/"title":"Sandbox","user":"Admin"[^}]*"comment":"a test edit"/,
         "$_: the edit was made by the user who logged in") for qw(cgiplus fcgid);
php_pool_served_all("http://127.0.0.1:$cport/status", $nsteps);

php_stop($dir, $fpm);
