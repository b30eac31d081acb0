# A shared host's mod_fcgid + PHP set-up under suEXEC (the ISPConfig/
# Virtualmin shape: SuexecUserGroup in the virtual host, the site's own
# php-fcgi-starter wrapper, owned by the site's user, under suexec's
# document root, FcgidWrapper ... .php, SetHandler fcgid-script), side by
# side under mod_fcgid and under the fcgid-script drop-in. suexec cleans
# the environment of the process it starts, but a request's variables are
# FastCGI params, which mod_fcgid passes whole: a `SetEnv FOO` (a site's
# APP_ENV, say) and FcgidPassHeader's bare `Authorization` reach PHP. The
# drop-in held them to suexec's safe list, as for a CGI script: PHP saw
# neither. Now both sides give PHP the same: the site's user, its
# wrapper's php.ini, FOO, Authorization. The other way round, the
# program's environment: suexec starts it with its safe list only, so of
# FcgidInitialEnv's variables mod_fcgid's application gets TZ, not
# FCGID_TEST_ENV; the runner gave a suEXEC pool every variable of its
# settings (FcgidInitialEnv, CGIplusSetEnv), LD_PRELOAD or BASH_ENV too,
# from whichever httpd child asked. Now the same list as suexec's.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use File::Path qw(make_path remove_tree);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir libexec);
use FreePort qw(free_port);

my $wrapper = '/usr/lib/apache2/suexec';
my $have_suexec = $> == 0 && -u $wrapper && (stat $wrapper)[4] == 0 && -x '/usr/sbin/useradd';
my $sxv = $have_suexec ? `$wrapper -V 2>&1` : '';
my ($docroot) = $sxv =~ /AP_DOC_ROOT="([^"]+)"/;
my ($sxlog) = $sxv =~ /AP_LOG_EXEC="([^"]+)"/;
my ($httpd_user) = $sxv =~ /AP_HTTPD_USER="([^"]+)"/;

plan tests => 2 * 7,
    need { 'root, and suEXEC installed setuid (apache2-suexec-pristine)' => $have_suexec &&
           $docroot && $sxlog && $httpd_user && defined(scalar getpwnam($httpd_user)),
           'needs php-cgi' => -x '/usr/bin/php-cgi',
           'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so' };

my $vars = Apache::Test::config()->{vars};
my $lib = libexec();
my $tag = 'cgpfx' . ($$ % 100000);
my $root = "$docroot/cgiplus-$tag";
my $dir = "$vars->{t_logs}/fcgid_suexec";
my $log_size = -e $sxlog ? -s $sxlog : -1;
my $made_user;

END {
    # Leave the machine as found: the user, the files, suexec's log.
    system("userdel -r '$tag' 2>/dev/null") if $made_user;
    remove_tree($root) if $root && $made_user;
    if (defined $log_size && $sxlog) {
        if ($log_size < 0) { unlink $sxlog } else { truncate $sxlog, $log_size }
    }
}

sub run { system(@_) == 0 or die "@_ failed\n" }
sub put {
    my ($file, $mode, $text) = @_;
    open my $fh, '>', $file or die "$file: $!";
    print $fh $text;
    close $fh;
    run('chown', "$tag:$tag", $file);
    chmod $mode, $file or die "chmod $file: $!";
}

run('useradd', '--create-home', '--user-group', '--shell', '/usr/sbin/nologin', $tag);
$made_user = 1;
my ($uid) = (getpwnam $tag)[2];
for my $d ($root, "$root/web", "$root/fcgi", "$root/etc") {
    make_path($d);
    run('chown', "$tag:$tag", $d);
    chmod 0755, $d;
}
put("$root/etc/php.ini", 0644, "memory_limit = 91M\n");
# the panel's wrapper, its paths ours
put("$root/fcgi/php-fcgi-starter", 0755, <<"SH");
#!/bin/sh
PHPRC=$root/etc/
export PHPRC
PHP_FCGI_MAX_REQUESTS=5000
export PHP_FCGI_MAX_REQUESTS
exec /usr/bin/php-cgi
SH
put("$root/web/env.php", 0644, <<'PHP');
<?php
echo 'uid=', posix_getuid(), ' ini=', ini_get('memory_limit'),
     ' foo=', $_SERVER['FOO'] ?? 'unset', ' auth=', $_SERVER['Authorization'] ?? 'unset',
     ' http_auth=', $_SERVER['HTTP_AUTHORIZATION'] ?? 'unset', "\n",
     'initial=', $_SERVER['FCGID_TEST_ENV'] ?? 'unset', ' tz=', $_SERVER['TZ'] ?? 'unset', "\n";
PHP

sub get {
    my ($url, @h) = @_;
    open my $fh, '-|', 'curl', '-s', '--max-time', '60', (map { ('-H', $_) } @h),
        '-o', '-', '-w', '\n%{http_code}', $url or die "curl: $!";
    local $/;
    my $out = <$fh> // '';
    close $fh;
    my ($body, $code) = $out =~ /^(.*)\n(\d+)$/s;
    return ($code // 0, $body // '');
}

for my $peer ('mod_fcgid', 'mod_cgiplus') {
    my $port = free_port();
    fresh_dir($dir);
    my $load = $peer eq 'mod_fcgid' ? "LoadModule fcgid_module $lib/mod_fcgid.so\n" : '';
    my $conf = "$dir/httpd.conf";
    open my $fh, '>', $conf or die "$conf: $!";
    # suexec runs only for its AP_HTTPD_USER (www-data): httpd's User here
    print $fh private_conf($dir, $port, [qw(mime authz_host env suexec)], <<"CONF");
$load
User $httpd_user
Group $httpd_user
TypesConfig /etc/mime.types
FcgidIPCDir $dir/ipc
FcgidPassHeader Authorization
FcgidInitialEnv FCGID_TEST_ENV hello
FcgidInitialEnv TZ Europe/Vienna
<VirtualHost 127.0.0.1:$port>
    ServerName sx.test
    DocumentRoot $root/web
    SuexecUserGroup $tag $tag
    SetEnv FOO from-setenv
    <Directory $root/web>
        <FilesMatch "\\.php\$">
            SetHandler fcgid-script
        </FilesMatch>
        FcgidWrapper $root/fcgi/php-fcgi-starter .php
        Options +ExecCGI
        Require all granted
    </Directory>
</VirtualHost>
CONF
    close $fh;
    ok t_cmp(private_start($conf, $port), 1, "$peer: the suEXEC site starts");
    my ($code, $body) = get("http://127.0.0.1:$port/env.php", 'Authorization: Bearer tok.en');
    ok t_cmp($code, 200, "$peer: its PHP answers");
    ok t_cmp($body =~ /uid=(\d+) ini=(\S+)/ ? "$1 $2" : $body, "$uid 91M",
             "$peer: as the site's user, with its wrapper's php.ini");
    ok t_cmp($body =~ /foo=(\S+)/ ? $1 : $body, 'from-setenv',
             "$peer: a SetEnv variable reaches PHP (a FastCGI param, not suexec's environment)");
    ok t_cmp($body =~ / auth=(.*?) http_auth=/ ? $1 : $body, 'Bearer tok.en',
             "$peer: FcgidPassHeader Authorization, under its own name too");
    ok t_cmp($body =~ /http_auth=(.*)$/m ? $1 : $body, 'Bearer tok.en', "$peer: and as HTTP_AUTHORIZATION");
    ok t_cmp($body =~ /^(initial=.*)$/m ? $1 : $body, 'initial=unset tz=Europe/Vienna',
             "$peer: of FcgidInitialEnv's variables, the process gets those on suexec's safe list only");
    private_stop("$dir/httpd.pid");
}
