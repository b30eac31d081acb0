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
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir libexec private_start_get
                    private_finish private_get resp_code);
use IO::Select;
use FreePort qw(free_port);
use AppTest qw(write_file curl lines_of);
use HeldGet qw(held_get held_answer);
use Time::HiRes qw(sleep time);

plan tests => 2 * 7 + 2,
    need { 'needs php-cgi' => -x '/usr/bin/php-cgi',
           'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so' };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/fcgid_queue";
my $lib = libexec();

# httpd's threads busy now (mod_status), the status request's own one too
sub busy {
    my ($port) = @_;
    return private_get($port, '/server-status?auto') =~ /^BusyWorkers: (\d+)/m ? $1 : 0;
}

# Reads @$socks' answers into @$got (by index) until $want of them are
# whole (httpd closes each), 60 s at most.
sub answered {
    my ($socks, $got, $want) = @_;
    my %idx = map { ($socks->[$_] => $_) } 0 .. $#$socks;
    my %buf;
    my $sel = IO::Select->new(grep { !defined $got->[$idx{$_}] } @$socks);
    my $t = time + 60;
    while (scalar(grep { defined } @$got) < $want && time < $t && $sel->count) {
        for my $s ($sel->can_read(1)) {
            my $n = sysread($s, my $chunk, 65536);
            if ($n) { $buf{$s} .= $chunk; next }
            $got->[$idx{$s}] = $buf{$s} // '';
            $sel->remove($s);
        }
    }
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
    # gate.php keeps the class's only process until the test opens the gate
    write_file("$dir/web/gate.php", <<'PHP', 0644);
<?php
$t = __DIR__ . '/../tmp/';
touch($t . 'gated');
for ($i = 0; $i < 1200 && !file_exists($t . 'open'); $i++)
    usleep(100000);
echo "gate ", getmypid(), "\n";
PHP
    mkdir "$dir/web/d2";
    chmod 0755, "$dir/web/d2";
    write_file("$dir/web/d2/gate.php", <<'PHP', 0644);
<?php
$t = __DIR__ . '/../../tmp/';
touch($t . 'gated2');
for ($i = 0; $i < 1200 && !file_exists($t . 'open2'); $i++)
    usleep(100000);
echo "gate ", getmypid(), "\n";
PHP
    write_file("$dir/web/d2/next.php", "<?php echo 'next ', getmypid(), \"\\n\";\n", 0644);
    write_file("$dir/web/next.php", <<'PHP', 0644);
<?php
file_put_contents(__DIR__ . '/../tmp/ledger', "next\n", FILE_APPEND | LOCK_EX);
echo "next ", getmypid(), "\n";
PHP
    my $load = $peer eq 'mod_fcgid' ? "LoadModule fcgid_module $lib/mod_fcgid.so\n" : '';
    my $conf = "$dir/httpd.conf";
    # a scope of its own class (its own wrapper) whose queue is named
    write_file("$dir/fcgi/starter2", "#!/bin/sh\nexec /usr/bin/php-cgi\n", 0755);
    my $d2 = $peer eq 'mod_cgiplus' ? "CGIplusQueueDepth 2" : '';
    write_file($conf, private_conf($dir, $port, [qw(mime authz_host status)], <<"CONF"), 0644);
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
<Directory $dir/web/d2>
    FcgidWrapper $dir/fcgi/starter2 .php
    $d2
</Directory>
<Location /server-status>
    SetHandler server-status
</Location>
CONF
    ok t_cmp(private_start($conf, $port), 1, "$peer: the panel's set-up starts");

    my ($code, undef, $body) = curl('--max-time', '120', "$base/next.php");
    ok t_cmp("$code $body", qr/^200 next \d+$/, "$peer: a first request starts the class's process");

    # the process is busy once hold.php runs
    my $held = held_get("$base/hold.php", "$dir/tmp/held");
    ($code, undef, $body) = curl('--max-time', '120', "$base/next.php");
    ok t_cmp("$code $body", qr/^200 next \d+$/,
             "$peer: a request that waits for the busy process past 10 s is served, not 503");
    ok t_cmp(held_answer($held), qr/^200 held \d+$/, "$peer: and the holding request too");
    ok t_cmp(join(',', lines_of("$dir/tmp/ledger")), 'next,hold,next', "$peer: each ran once");

    # a burst past CGIplusQueueDepth's default while the gate holds the
    # process: the gate opens once every request waits (or after 60 s)
    my $gate = private_start_get($port, '/gate.php');
    for (1 .. 600) { last if -e "$dir/tmp/gated"; sleep 0.1 }
    my @burst = map { private_start_get($port, '/next.php') } 1 .. 110;
    my $t = time + 60;
    sleep 0.2 while time < $t && busy($port) < 112;
    write_file("$dir/tmp/open", '', 0644);
    my %codes;
    $codes{ resp_code(private_finish($_)) }++ for @burst;
    ok t_cmp(join(' ', map { "${_}x$codes{$_}" } sort keys %codes), '200x110',
             "$peer: 110 requests wait for the class's busy process, all served");
    ok t_cmp(resp_code(private_finish($gate)), 200, "$peer: and the gate's request");

    if ($peer eq 'mod_cgiplus') {
        # CGIplusQueueDepth 2 named: of 5 while the gate holds, 2 wait, 3 get 503 at once
        my $g2 = private_start_get($port, '/d2/gate.php');
        for (1 .. 600) { last if -e "$dir/tmp/gated2"; sleep 0.1 }
        my @five = map { private_start_get($port, '/d2/next.php') } 1 .. 5;
        my @got;
        answered(\@five, \@got, 3);
        my @early = grep { defined } @got;
        write_file("$dir/tmp/open2", '', 0644);
        answered(\@five, \@got, 5);
        my @late = @got;
        ok t_cmp(join(' ', map { resp_code($_) . (/^Retry-After: \d+\r?$/mi ? '+RA' : '') } @early),
                 '503+RA 503+RA 503+RA', "$peer: past a named CGIplusQueueDepth, 503 with Retry-After");
        ok t_cmp(join(' ', sort map { resp_code($_ // '') } @late), '200 200 503 503 503',
                 "$peer: the 2 that waited are served once the process is free");
        private_finish($g2);
    }
    private_stop("$dir/httpd.pid");
}
