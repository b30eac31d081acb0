# httpd -t warns about settings that contradict each other, naming the
# directive, its file and line: CGIplusMinIdle above CGIplusMaxWorkers or
# CGIplusMaxWorkersTotal, CGIplusMaxWorkers above CGIplusMaxWorkersTotal,
# CGIplusTimeoutNoProgress or CGIplusQueueWait not below httpd's Timeout
# (the virtual host's own Timeout counts). The configuration still passes.
# (Values out of range, directive by directive: t/52_directives.t.) The
# runner's configuration file says what the directives name.
# An in-process interpreter (mod_lua from apache2's own modules; mod_perl
# where installed) beside a pool with CGIplusUser is warned about, naming
# the module, at httpd -t and at startup.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use lib 't/htdocs/pool/lib';
use PoolTest ();
use lib 't/lib';
use FreePort qw(free_port);
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir);

plan tests => 21;

my $vars = Apache::Test::config()->{vars};
chomp(my $libexec = `$vars->{apxs} -q LIBEXECDIR`);
my $dir = "$vars->{t_logs}/configtest";
remove_tree($dir);
make_path($dir);
sub configtest { PoolTest::configtest($dir, @_) }

my ($rc, $out) = configtest(<<'CONF');
Timeout 300
CGIplusMaxWorkersTotal 8
<Directory /srv>
    CGIplusMaxWorkers 4
    CGIplusMinIdle 6
</Directory>
<Location /big>
    CGIplusMaxWorkers 16
</Location>
CGIplusTimeoutNoProgress 600s
<VirtualHost 127.0.0.1:1>
    Timeout 20
    <Location /q>
        CGIplusQueueWait 30s
    </Location>
</VirtualHost>
<Location /warm>
    CGIplusMinIdle 9
    CGIplusMaxWorkers 12
</Location>
CONF
my $f = "$dir/httpd.conf";
# The line of the directive matching re in the written file.
sub at {
    my ($re) = @_;
    open my $fh, '<', $f or die;
    while (<$fh>) { return "$f:$." if /$re/ }
    die "no line matches $re\n";
}
ok t_cmp($rc, 0, 'the configuration still passes httpd -t');
ok t_cmp($out, qr/Syntax OK/, 'Syntax OK');
ok t_cmp($out, qr/\[cgiplus:warn\] .*CGIPLUS1611: \Q${\at(qr{MinIdle 6})}\E: CGIplusMinIdle 6 is more than CGIplusMaxWorkers 4 \(\Q${\at(qr{MaxWorkers 4})}\E\)/,
         'CGIplusMinIdle above the CGIplusMaxWorkers in force: both lines named');
ok t_cmp($out, qr/CGIPLUS1611: \Q${\at(qr{MaxWorkers 16})}\E: CGIplusMaxWorkers 16 is more than CGIplusMaxWorkersTotal 8/,
         'CGIplusMaxWorkers above CGIplusMaxWorkersTotal');
ok t_cmp($out, qr/CGIPLUS1611: \Q${\at(qr{MinIdle 9})}\E: CGIplusMinIdle 9 is more than CGIplusMaxWorkersTotal 8/,
         'CGIplusMinIdle above CGIplusMaxWorkersTotal');
ok t_cmp($out, qr/CGIPLUS1611: \Q${\at(qr{NoProgress 600s})}\E: CGIplusTimeoutNoProgress 600s is not below httpd's Timeout \(300 s in the main server\)/,
         'CGIplusTimeoutNoProgress above Timeout');
ok t_cmp($out, qr/CGIPLUS1611: \Q${\at(qr{QueueWait 30s})}\E: CGIplusQueueWait 30s is not below httpd's Timeout \(20 s in this virtual host\)/,
         "CGIplusQueueWait above the virtual host's Timeout");
my $n = () = $out =~ /CGIPLUS1611/g;
# MinIdle 6, MaxWorkers 16 and 12, MinIdle 9, NoProgress (inherited by
# every section), QueueWait
ok t_cmp($n, 6, 'one warning per directive line, however many sections inherit it');

($rc, $out) = configtest(<<'CONF');
Timeout 60
CGIplusMaxWorkersTotal 64
<Directory /srv>
    CGIplusMaxWorkers 8
    CGIplusMinIdle 2
    CGIplusTimeoutNoProgress 30s
    CGIplusQueueWait 10s
</Directory>
CONF
ok t_cmp($rc, 0, 'a consistent configuration passes');
ok t_cmp($out =~ /CGIPLUS1611/ ? 1 : 0, 0, 'without warnings');

# mod_cgid's CGIDScriptTimeout (and mod_cgi's CGIScriptTimeout) is the
# no-progress timeout: past Timeout it is warned about like
# CGIplusTimeoutNoProgress, on its own line (httpd -t crashed here: the
# value had no line to name).
($rc, $out) = configtest(<<'CONF');
Timeout 60
CGIDScriptTimeout 120
<Location /old>
    CGIScriptTimeout 90s
</Location>
CONF
ok t_cmp("$rc " . ($out =~ /Syntax OK/ ? 'Syntax OK' : $out), '0 Syntax OK',
         'CGIDScriptTimeout past Timeout: httpd -t passes (it crashed)');
ok t_cmp($out, qr/CGIPLUS1611: \Q${\at(qr{CGIDScriptTimeout 120})}\E: CGIplusTimeoutNoProgress 120s is not below httpd's Timeout/,
         "and warns, naming CGIDScriptTimeout's line");
ok t_cmp($out, qr/CGIPLUS1611: \Q${\at(qr{CGIScriptTimeout 90s})}\E: CGIplusTimeoutNoProgress 90s is not/,
         "and CGIScriptTimeout's in a section");

# The runner's configuration file, written from the same table: each
# runner-wide setting the test configuration names (extra.conf.in), in the
# syntax the runner reads, and what httpd says itself (its Timeout, 60 s by
# default; its MaxRequestWorkers, 640 in the suite; its LogLevel; the users
# CGIplusUser names; where its suexec wrapper is enabled, the wrapper's own
# settings); nothing else.
open my $rcf, '<', "$vars->{t_logs}/cgiplus-runner.conf" or die;
my @lines = grep { !/^#/ } <$rcf>;
chomp @lines;
my @daemon = (getpwnam 'daemon')[2, 3];
my @suexec;
my ($sxbin) = `$vars->{httpd} -V 2>/dev/null` =~ /-D SUEXEC_BIN="([^"]+)"/;
if ($sxbin && -u $sxbin && (stat $sxbin)[4] == 0) { # httpd's test for suexec_enabled
    my %d = `$sxbin -V 2>&1` =~ /-D (\w+)="?([^"\n]*)"?/g;
    my $min = sub { $_[0] && $_[0] > 100 ? $_[0] : 100 };
    @suexec = ((map { $d{$_->[1]} ? "$_->[0] $d{$_->[1]}" : () }
                ['suexec_docroot', 'AP_DOC_ROOT'], ['suexec_userdir', 'AP_USERDIR_SUFFIX'],
                ['suexec_log', 'AP_LOG_EXEC']),
               'suexec_uid_min ' . $min->($d{AP_UID_MIN}), 'suexec_gid_min ' . $min->($d{AP_GID_MIN}));
    if ($d{SUEXEC_CONFIG_DIR}) { # suexec-custom: these two from its own file, not checked here
        @lines = grep { !/^suexec_(?:docroot|userdir) / } @lines;
        @suexec = grep { !/^suexec_(?:docroot|userdir) / } @suexec;
    }
}
my $want = join ' ', 'max_workers_total 256', 'kill_grace 1000ms', 'backoff_base 300ms',
    'backoff_max 3000ms', 'http_timeout 60000ms', 'http_threads 640', 'callout_timeout 1000ms',
    'spool_max 62914560',
    'log_level (?:error|warn|info|debug)', "allow_user $daemon[0]:$daemon[1]", map { quotemeta } @suexec;
ok t_cmp(join(' ', @lines), qr/^$want$/,
         "cgiplus-runner.conf says what the directives name, in the runner's syntax");

# In-process interpreters run inside httpd's children, which hold the
# runner's key: next to them CGIplusUser separates nothing (1180).
my $users = <<'CONF';
<Directory /srv/a>
    CGIplusUser daemon
</Directory>
CONF
my $daemon = join ':', (getpwnam('daemon'))[2, 3];
($rc, $out) = configtest("LoadModule lua_module $libexec/mod_lua.so\n$users");
ok t_cmp($rc, 0, 'mod_lua beside a CGIplusUser pool: httpd -t still passes');
ok t_cmp($out, qr/\[cgiplus:warn\] .*CGIPLUS1180: mod_lua\.c is loaded beside pools with a CGIplusUser \(uid:gid \Q$daemon\E\): code it runs runs inside httpd's children, which hold the runner's key/,
         'and warns, naming mod_lua.c and the pools\' user (1180)');
($rc, $out) = configtest("LoadModule lua_module $libexec/mod_lua.so\n");
ok t_cmp($out =~ /CGIPLUS1180/ ? 1 : 0, 0, 'mod_lua without any CGIplusUser: no warning');
($rc, $out) = configtest($users);
ok t_cmp($out =~ /CGIPLUS1180/ ? 1 : 0, 0, 'CGIplusUser without an in-process interpreter: no warning');
if (-e "$libexec/mod_perl.so") {
    ($rc, $out) = configtest("LoadModule perl_module $libexec/mod_perl.so\n$users");
    ok t_cmp($out, qr/CGIPLUS1180: mod_perl\.c is loaded beside pools with a CGIplusUser/,
             'mod_perl too');
}
else {
    skip 'mod_perl is not installed (libapache2-mod-perl2)';
}

# At startup as well: the same line in the error log of a started httpd.
my $pdir = "$vars->{t_logs}/inprocess";
my $pport = free_port(); # (an offset from the suite's port meets its virtual hosts)
fresh_dir($pdir);
open my $pc, '>', "$pdir/httpd.conf" or die;
print $pc private_conf($pdir, $pport, ['lua'], $users);
close $pc;
ok t_cmp(private_start("$pdir/httpd.conf", $pport), 1, 'an httpd with mod_lua and a CGIplusUser pool starts');
private_stop("$pdir/httpd.pid");
open my $pl, '<', "$pdir/error_log" or die;
ok t_cmp(do { local $/; <$pl> }, qr/\[cgiplus:warn\] .*CGIPLUS1180: mod_lua\.c is loaded/,
         'and its error log has the warning');
