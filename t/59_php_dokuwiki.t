# Issue 22, part 3: a real PHP application that needs no database server,
# Debian's own dokuwiki package, served by php-cgi pool workers
# (CGIplusEngine php) and by php-fpm + mod_proxy_fcgi side by side. Each
# side gets a private copy of the package (its tree, /etc/dokuwiki and
# /var/lib/dokuwiki/data, owned by the test's httpd user; inc/preload.php
# and conf/local.php point at the copy), and Debian's
# conf-available/dokuwiki.conf with its paths changed: the mod_cgiplus side
# adds only "AddHandler cgiplus-script .php" and "CGIplusEngine php" (no
# Options ExecCGI: .php files are the engine's data, as under php-fpm). The
# same walk, with a cookie jar each: pages, CSS and JS bundles, an image
# through fetch.php (whole, If-None-Match, Range), search, feed, a 404, a
# log-in with the form's CSRF token, an edit saved by POST, its page and
# revisions, a log-out. Status, type, Location (the port aside) and body
# (ports, session tokens and clock times aside) must match at every step.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(fresh_dir);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(walk same_answer php_pool_served_all);

my $debconf = '/etc/apache2/conf-available/dokuwiki.conf';
my $nsteps = 24;
plan tests => 4 + 4 * $nsteps,
    need php_need('needs dokuwiki (Debian package dokuwiki)' => (-f '/usr/share/dokuwiki/doku.php' && -f $debconf));

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/dokuwiki";
my ($cport, $fport) = free_ports(2);
fresh_dir($dir);
my $sock = "$dir/fpm.sock";
my ($uid, $gid) = (getpwnam($vars->{user}))[2, 3];
my $hash = `php -r 'echo password_hash("s3cret", PASSWORD_BCRYPT);'`;
my $salt = join '', map { sprintf '%02x', int rand 256 } 1 .. 64;

# ---- a private copy of the package for each side
for my $side (qw(cgiplus fpm)) {
    my $w = "$dir/$side";
    mkdir $w;
    system('cp', '-rL', '/usr/share/dokuwiki', "$w/wiki") == 0 or die "cp dokuwiki";
    system('cp', '-rL', '/etc/dokuwiki', "$w/conf") == 0 or die "cp /etc/dokuwiki";
    system('cp', '-a', '/var/lib/dokuwiki/data', "$w/data") == 0 or die "cp data";
    write_file("$w/wiki/inc/preload.php", "<?php\ndefine('DOKU_CONF', '$w/conf/');\n", 0644);
    open my $fh, '>>', "$w/conf/local.php" or die;
    print $fh "\$conf['savedir'] = '$w/data';\n";
    close $fh;
    write_file("$w/conf/users.auth.php", "alice:$hash:Alice:alice\@example.com:user\n", 0644);
    # One secret for both: dokuwiki signs media URLs (tok=) with it, and
    # each side would otherwise make its own at random.
    write_file("$w/data/meta/_htcookiesalt2", $salt, 0600);
    system('chown', '-R', "$uid:$gid", $w) if $> == 0;
}

# ---- a private php-fpm, as many children as the pool has workers
my $fpm = php_fpm($dir, 2);

# ---- Debian's dokuwiki.conf, its paths the copies', once per side
open my $dc, '<', $debconf or die "$debconf: $!";
my $debian = do { local $/; <$dc> };
close $dc;
sub side_conf {
    my ($side, $add) = @_;
    my $c = $debian;
    $c =~ s{/usr/share/dokuwiki/}{$dir/$side/wiki/}g;
    $c =~ s{/var/lib/dokuwiki/data}{$dir/$side/data}g;
    $c =~ s{(AllowOverride All\n)}{$1$add};
    return $c;
}
php_httpd($dir, $cport, [$fport], [qw(dir authz_host access_compat)], <<"CONF", 'a private httpd with both sides');
DirectoryIndex index.php index.html
<VirtualHost 127.0.0.1:$cport>
@{[side_conf('cgiplus', "AddHandler cgiplus-script .php\nCGIplusEngine php\nCGIplusMaxWorkers 2\n")]}
<Location /status>
    SetHandler cgiplus-status
</Location>
</VirtualHost>
<VirtualHost 127.0.0.1:$fport>
@{[side_conf('fpm', "<FilesMatch \".+\\\\.php\$\">\nSetHandler \"proxy:unix:$sock|fcgi://localhost\"\n</FilesMatch>\n")]}
</VirtualHost>
CONF

# ---- the walk: each step a request made from what the side answered before
my $img = '/dokuwiki/lib/exe/fetch.php?media=wiki:dokuwiki-128.png';
my $page = 'playground:cgiplus';
my $text = "====== From a test ======\n\nSaved through **POST**, caf\xc3\xa9 & <tags>.\n";
sub tok { ($_[0] =~ /name="sectok" value="([0-9a-f]*)"/)[0] // '' }
sub field { my ($b, $n) = @_; ($b =~ /name="\Q$n\E" value="([^"]*)"/)[0] // '' }
my @steps = (
    sub { [GET => '/dokuwiki/'] },
    sub { [GET => '/dokuwiki/doku.php?id=start'] },
    sub { [GET => '/dokuwiki/doku.php?id=wiki:syntax'] },
    sub { [GET => '/dokuwiki/lib/exe/css.php?t=dokuwiki&tseed=1'] },
    sub { [GET => '/dokuwiki/lib/exe/js.php?t=dokuwiki&tseed=1'] },
    sub { [GET => $img] },
    sub { [GET => $img, '-H', "If-None-Match: $_[0]{etag}"] },
    sub { [GET => $img, '-r', '100-1099'] },
    sub { [GET => '/dokuwiki/lib/exe/detail.php?media=wiki:dokuwiki-128.png'] },
    sub { [GET => '/dokuwiki/doku.php?do=search&q=syntax'] },
    sub { [GET => '/dokuwiki/feed.php'] },
    sub { [GET => '/dokuwiki/doku.php?id=no:such:page'] },
    sub { [HEAD => '/dokuwiki/doku.php?id=start'] },
    sub { [GET => '/dokuwiki/doku.php?id=start&do=login'] },
    sub { [POST => '/dokuwiki/doku.php', '--data', "sectok=" . tok($_[0]{body}) . '&id=start&do=login&u=alice&p=wrong'] },
    sub { [POST => '/dokuwiki/doku.php', '--data', "sectok=" . tok($_[0]{body}) . '&id=start&do=login&u=alice&p=s3cret'] },
    sub { [GET => "/dokuwiki/doku.php?id=$page&do=edit"] },
    sub { my $b = $_[0]{body};
          [POST => '/dokuwiki/doku.php', '--data-urlencode', "sectok=" . tok($b), '--data-urlencode', "id=$page",
           '--data-urlencode', 'do[save]=Save', '--data-urlencode', 'date=' . field($b, 'date'),
           '--data-urlencode', 'prefix=', '--data-urlencode', 'suffix=', '--data-urlencode', 'changecheck=' . field($b, 'changecheck'),
           '--data-urlencode', 'target=section', '--data-urlencode', "wikitext=$text",
           '--data-urlencode', 'summary=a test edit'] },
    sub { [GET => "/dokuwiki/doku.php?id=$page"] },
    sub { [GET => "/dokuwiki/doku.php?id=$page&do=export_raw"] },
    sub { [GET => "/dokuwiki/doku.php?id=$page&do=revisions"] },
    sub { [GET => '/dokuwiki/doku.php?do=search&q=POST'] },
    sub { [GET => '/dokuwiki/doku.php?id=start&do=logout&sectok=' . tok($_[0]{body})] },
    sub { [GET => '/dokuwiki/doku.php?id=start'] },
);
die 'step count' unless @steps == $nsteps;

# What may differ between the sides: the port, the session's CSRF token and
# cookie names, clock times.
sub norm {
    my ($s, $port) = @_;
    $s =~ s/127\.0\.0\.1:$port/127.0.0.1:PORT/g;
    $s =~ s/\b[0-9a-f]{32}\b/HEX/g;
    $s =~ s/\b\d{4}\/\d\d\/\d\d \d\d:\d\d\b/TIME/g;
    # (and in a script's string, its slashes escaped: the edit page's
    # signature, var SIG="... 2026\/12\/07 15:03", the minute of the request)
    $s =~ s/\b\d{4}\\\/\d\d\\\/\d\d \d\d:\d\d\b/TIME/g;
    $s =~ s/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d\b/TIME/g;
    $s =~ s/\b1[6-9]\d{8}\b/EPOCH/g;
    $s =~ s/\b(?:[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d) [+-]\d{4}\b/TIME/g;
    return $s;
}
walk(\@steps, { cgiplus => $cport, fpm => $fport }, $dir, \&norm, sub {
    my ($what, $r) = @_;
    $what =~ s/sectok=[0-9a-f]*/sectok=.../;
    same_answer($what, 'mod_cgiplus', $r->{cgiplus}, $r->{fpm});
});

# The walk really went through the application, and on persistent workers.
my (undef, undef, $raw) = curl("http://127.0.0.1:$cport/dokuwiki/doku.php?id=$page&do=export_raw");
ok t_cmp($raw, $text, 'the page saved through php-cgi workers holds the text as posted');
php_pool_served_all("http://127.0.0.1:$cport/status", $nsteps);

php_stop($dir, $fpm);
