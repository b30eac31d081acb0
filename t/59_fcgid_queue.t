# A hosting panel's mod_fcgid + PHP set-up (ISPConfig's shape: a per-site
# php-fcgi-starter wrapper, FcgidWrapper ... .php in the <Directory>,
# SetHandler fcgid-script for *.php, FcgidMaxProcessesPerClass) with every
# process of the class busy: mod_fcgid keeps a new request waiting for a
# process up to 64 s before its 503. The fcgid-script drop-in gave up
# after the runner's default CGIplusQueueWait, 10 s: a burst of 40
# requests of 1 s on 2 processes got 18 503s where mod_fcgid served all
# 40. Now an fcgid-script request waits as long (within Timeout), unless
# CGIplusQueueWait says otherwise. Here one request holds the only
# process for 12 s and a second one waits for it: served, once, under
# mod_fcgid and under mod_cgiplus alike.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir libexec);
use FreePort qw(free_port);
use AppTest qw(write_file);
use Time::HiRes qw(sleep);

plan tests => 2 * 5,
    need { 'needs php-cgi' => -x '/usr/bin/php-cgi',
           'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so' };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/fcgid_queue";
my $lib = libexec();

sub get {
    my ($url) = @_;
    open my $fh, '-|', 'curl', '-s', '--max-time', '120', '-o', '-', '-w', '\n%{http_code}', $url
        or die "curl: $!";
    local $/;
    my $out = <$fh> // '';
    close $fh;
    my ($body, $code) = $out =~ /^(.*)\n(\d+)$/s;
    return ($code // 0, $body // '');
}

sub lines_of {
    my ($f) = @_;
    open my $fh, '<', $f or return ();
    return map { chomp; $_ } <$fh>;
}

for my $peer ('mod_fcgid', 'mod_cgiplus') {
    my $port = free_port();
    my $base = "http://127.0.0.1:$port";
    fresh_dir($dir);
    mkdir "$dir/$_" for qw(web fcgi tmp);
    chmod 0755, "$dir/web", "$dir/fcgi";
    chmod 0777, "$dir/tmp";
    # the panel's wrapper (ISPConfig's php-fcgi-starter, its paths ours)
    write_file("$dir/fcgi/php-fcgi-starter", <<"SH", 0755);
#!/bin/sh
PHPRC=/etc/php/8.2/cgi/
export PHPRC
PHP_DOCUMENT_ROOT=$dir/web
export PHP_DOCUMENT_ROOT
PHP_FCGI_MAX_REQUESTS=5000
export PHP_FCGI_MAX_REQUESTS
exec /usr/bin/php-cgi -d upload_tmp_dir=$dir/tmp -d session.save_path=$dir/tmp
SH
    # hold.php keeps the class's only process until told, 12 s at least
    write_file("$dir/web/hold.php", <<'PHP', 0644);
<?php
$t = __DIR__ . '/../tmp/';
file_put_contents($t . 'ledger', "hold\n", FILE_APPEND | LOCK_EX);
touch($t . 'held');
sleep(12);
echo "held ", getmypid(), "\n";
PHP
    write_file("$dir/web/next.php", <<'PHP', 0644);
<?php
file_put_contents(__DIR__ . '/../tmp/ledger', "next\n", FILE_APPEND | LOCK_EX);
echo "next ", getmypid(), "\n";
PHP
    my $load = $peer eq 'mod_fcgid' ? "LoadModule fcgid_module $lib/mod_fcgid.so\n" : '';
    my $conf = "$dir/httpd.conf";
    write_file($conf, private_conf($dir, $port, [qw(mime authz_host)], <<"CONF"), 0644);
$load
TypesConfig /etc/mime.types
FcgidIPCDir $dir/ipc
FcgidMaxProcessesPerClass 1
FcgidMaxRequestsPerProcess 5000
FcgidIOTimeout 360
FcgidBusyTimeout 300
DocumentRoot $dir/web
<Directory $dir/web>
    <FilesMatch "\\.php[345]?\$">
        SetHandler fcgid-script
    </FilesMatch>
    FcgidWrapper $dir/fcgi/php-fcgi-starter .php
    Options +ExecCGI
    Require all granted
</Directory>
CONF
    ok t_cmp(private_start($conf, $port), 1, "$peer: the panel's set-up starts");

    my ($code, $body) = get("$base/next.php");
    ok t_cmp("$code $body", qr/^200 next \d+$/, "$peer: a first request starts the class's process");

    my $pid = open(my $held, '-|') // die "fork: $!";
    if (!$pid) {
        my ($c, $b) = get("$base/hold.php");
        print "$c $b";
        exit 0;
    }
    # the process is busy once hold.php runs
    for (1 .. 600) { last if -e "$dir/tmp/held"; sleep 0.1 }
    ($code, $body) = get("$base/next.php");
    ok t_cmp("$code $body", qr/^200 next \d+$/,
             "$peer: a request that waits for the busy process past 10 s is served, not 503");
    my $first = do { local $/; <$held> } // '';
    close $held;
    ok t_cmp($first, qr/^200 held \d+$/, "$peer: and the holding request too");
    ok t_cmp(join(',', lines_of("$dir/tmp/ledger")), 'next,hold,next', "$peer: each ran once");
    private_stop("$dir/httpd.pid");
}
