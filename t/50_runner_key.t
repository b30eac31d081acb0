# The default connection key (docs/RUNNER.md, "Who may drive the runner"):
# without CGIplusRunnerKeyFile the httpd parent makes a random key and hands
# it to the runner it starts through a pipe. A second, minimal httpd (the
# suite's own uses a key file so the wire tests can talk to its runner)
# serves scripts with it; a script still cannot drive the runner; the key is
# in neither the runner's command line nor its environment; and it survives
# a graceful restart and a runner restart. A CGIplusRunnerKeyFile must be
# root's: one owned by another user (who could read it) stops httpd.
use strict;
use lib "t/lib";
use FreePort qw(free_port);
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use IO::Socket::INET;
use LWP::UserAgent;
use Time::HiRes qw(sleep);
use lib 't/htdocs/pool/lib';
use PoolTest qw(wait_for wire_key_file);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_stop private_check private_log pid_in);

plan tests => 21;

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $dir = "$vars->{t_logs}/keytest";
my $port = free_port();
my $nobody = getpwnam('nobody');
my $libexec = `apxs -q LIBEXECDIR 2>/dev/null` || '/usr/lib/apache2/modules';
chomp $libexec;
remove_tree($dir);
make_path($dir);
chmod 0755, $dir;

open my $cf, '>', "$dir/httpd.conf" or die;
print $cf <<"CONF";
ServerRoot $dir
LoadModule mpm_event_module $libexec/mod_mpm_event.so
LoadModule authz_core_module $libexec/mod_authz_core.so
LoadModule alias_module $libexec/mod_alias.so
LoadModule cgiplus_module $top/mod_cgiplus/.libs/mod_cgiplus.so
Listen 127.0.0.1:$port
ServerName 127.0.0.1
PidFile $dir/httpd.pid
ErrorLog $dir/error_log
LogLevel info
DefaultRuntimeDir $dir
User nobody
Group nogroup
StartServers 1
CGIplusRunnerPath $top/runner/cgiplus-runner
Alias /s/ $vars->{documentroot}/pool/
<Directory $vars->{documentroot}/pool>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
CONF
close $cf;

my $httpd = $vars->{httpd};
sub ctl { system($httpd, '-f', "$dir/httpd.conf", '-k', $_[0]) }
sub get {
    my $ua = LWP::UserAgent->new(timeout => 20);
    my $r = $ua->get("http://127.0.0.1:$port$_[0]");
    return { code => $r->code, body => $r->decoded_content // '' };
}
sub field { my ($b, $k) = @_; return ($b =~ /^\Q$k\E=(.*)$/m)[0] // '' }
sub runner { pid_in("$dir/cgiplus-runner.pid") }

my $sock = "$dir/cgiplus-runner.sock";
ctl('start');
# However the test ends, this httpd stops.
END { system($httpd, '-f', "$dir/httpd.conf", '-k', 'stop') if $httpd && -s "$dir/httpd.pid" }
my $rp = wait_for(sub { -S $sock && runner() }, 15);
# Before any request, every pipe the runner holds is its signal self-pipe
# (both ends) or one it inherited from the httpd parent like any other
# descriptor; the key pipe's read end, which the parent closed, is gone.
sub pipes_of {
    my ($pid) = @_;
    opendir my $d, "/proc/$pid/fd" or die "$pid: $!";
    my %n;
    $n{$_}++ for map { (readlink("/proc/$pid/fd/$_") // '') =~ /^(pipe:\S+)/ ? $1 : () } readdir $d;
    return \%n;
}
my ($rpipes, $hpipes) = (pipes_of($rp), pipes_of(pid_in("$dir/httpd.pid")));
my @lone = grep { $rpipes->{$_} == 1 && !$hpipes->{$_} } keys %$rpipes;
ok t_cmp("@lone", '', 'the key pipe is closed once read');
open my $fh, '<', "/proc/$rp/cmdline" or die "runner $rp: $!";
my @argv = split /\0/, do { local $/; <$fh> };
ok t_cmp(join(' ', @argv), qr/ --key-fd \d+( |$)/, 'the runner gets its key by descriptor (--key-fd)');
ok t_cmp(scalar(grep { /[0-9a-f]{32}/i } @argv), 0, 'no key-like value on its command line');
open $fh, '<', "/proc/$rp/environ" or die;
my $envtext = do { local $/; <$fh> };
ok t_cmp($envtext =~ /[0-9a-f]{32}/i ? 1 : 0, 0, 'nor in its environment');
ok t_cmp(wait_for(sub { get('/s/whoami.pl')->{code} == 200 }, 15) ? 1 : 0, 1,
         'httpd with no CGIplusRunnerKeyFile serves a script through its runner');

my $marker = "$dir/marker";
my $r = get("/s/attack.pl?sock=$sock&marker=$marker&httpd=" . pid_in("$dir/httpd.pid"));
ok t_cmp(field($r->{body}, 'uid'), $nobody, 'a script of this httpd runs as nobody');
ok t_cmp(field($r->{body}, 'badkey') . ' ' . field($r->{body}, 'oldhello'),
         '0 bytes, eof 0 bytes, eof', 'and cannot drive the runner');
ok t_cmp(field($r->{body}, 'memory'), qr/^0 of [1-9]/,
         "nor read the memory of httpd's or the runner's processes");
ok t_cmp(scalar(glob("$marker-*")) ? 1 : 0, 0, 'nothing it asked for ran');

# A graceful restart keeps the runner and its key; new children know it.
ctl('graceful');
my $ok = wait_for(sub { private_log($dir) =~ /CGIPLUS1604/ }, 10);
ok t_cmp($ok ? 1 : 0, 1, 'graceful restart: the runner is kept (1604)');
sleep 0.5;
ok t_cmp(get('/s/whoami.pl')->{code}, 200, 'and the next generation talks to it');
ok t_cmp(runner(), $rp, 'the same runner');

# The runner killed: httpd starts another with the same key.
kill 'KILL', $rp;
my $new = wait_for(sub { my $p = runner(); $p && $p != $rp && -S $sock ? $p : 0 }, 10);
ok t_cmp($new ? 1 : 0, 1, 'a killed runner is started again');
ok t_cmp(wait_for(sub { get('/s/whoami.pl')->{code} == 200 }, 10) ? 1 : 0, 1,
         'and children that were running already still reach it (same key)');
my $log = private_log($dir);
ok t_cmp($log =~ /CGIPLUS2200: refused a connection from pid \d+ uid $nobody/ ? 1 : 0, 1,
         'the refused script is logged (2200)');

# A key file its owner may read, owned by someone else than root: whoever
# owns it can read the key (chmod it back) and drive the runner.
my $kdir = "$vars->{t_logs}/keyowner";
remove_tree($kdir);
make_path($kdir);
chmod 0755, $kdir;
my $kport = free_port(); # (an offset from the suite's port meets its virtual hosts)
system('cp', wire_key_file(), "$kdir/runner.key") == 0 or die;
chmod 0600, "$kdir/runner.key";
chown $nobody, -1, "$kdir/runner.key";
open $cf, '>', "$kdir/httpd.conf" or die;
print $cf private_conf($kdir, $kport, [], "CGIplusRunnerKeyFile $kdir/runner.key\n");
close $cf;
system($httpd, '-f', "$kdir/httpd.conf", '-k', 'start');
my $refused = wait_for(sub { private_log($kdir) =~ /CGIPLUS1200/ }, 10);
ok t_cmp(private_log($kdir), qr/CGIPLUS1200: mod_cgiplus: CGIplusRunnerKeyFile \Q$kdir\E\/runner\.key is owned by uid $nobody: it must be owned by root/,
         'a key file owned by nobody (0600) is refused, saying why (1200)');
ok t_cmp(wait_for(sub { !-e "$kdir/httpd.pid" }, 10) && !IO::Socket::INET->new("127.0.0.1:$kport") ? 1 : 0, 1,
         'and httpd does not start');
chown 0, 0, "$kdir/runner.key";
my $started = private_start("$kdir/httpd.conf", $kport);
ok t_cmp($started, 1, 'the same file owned by root: httpd starts');
my @refusals = private_log($kdir) =~ /CGIPLUS1200/g;
ok t_cmp(scalar(@refusals), 1, 'without a second 1200');
private_stop("$kdir/httpd.pid");

# httpd -t (apache2ctl configtest, run before a graceful restart) refuses
# the same file: else the configtest passes and the restart itself fails,
# which stops httpd.
chown $nobody, -1, "$kdir/runner.key";
my ($krc, $kout) = private_check("$kdir/httpd.conf");
ok t_cmp("$krc " . ($kout =~ /CGIPLUS1200: mod_cgiplus: CGIplusRunnerKeyFile \S+ is owned by uid $nobody/ ? 'says why' : $kout),
         '1 says why', 'httpd -t refuses a key file owned by nobody (1200)');
chown 0, 0, "$kdir/runner.key";
($krc, $kout) = private_check("$kdir/httpd.conf");
ok t_cmp($krc, 0, 'and takes it owned by root');
