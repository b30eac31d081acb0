# The per-child pool of runner connections under the prefork and worker
# MPMs (the main test server runs event): a private httpd per MPM, with the
# module and a runner of the build tree, under concurrent load. Every
# request must succeed and connections must be reused, not opened per
# request. Only the processes this test starts are stopped.
use strict;
use lib "t/lib";
use FreePort qw(free_port);
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use File::Path qw(make_path remove_tree);
use IO::Socket::INET;
use Time::HiRes qw(sleep);

my @mpms = ('prefork', 'worker');
plan tests => 5 * @mpms;

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $port = free_port();
chomp(my $libexec = `$vars->{apxs} -q LIBEXECDIR`);
my $requests = 1000;

for my $mpm (@mpms) {
    my $dir = "$vars->{t_logs}/mpm-$mpm";
    remove_tree($dir);
    make_path($dir);
    chmod 0755, $dir;
    open my $fh, '>', "$dir/httpd.conf" or die "$dir/httpd.conf: $!";
    print $fh <<"CONF";
ServerRoot $dir
PidFile $dir/httpd.pid
ErrorLog $dir/error_log
LogLevel warn cgiplus:debug
Listen 127.0.0.1:$port
ServerName 127.0.0.1
LoadModule mpm_${mpm}_module $libexec/mod_mpm_$mpm.so
LoadModule authz_core_module $libexec/mod_authz_core.so
LoadModule alias_module $libexec/mod_alias.so
LoadModule cgiplus_module $top/mod_cgiplus/.libs/mod_cgiplus.so
DefaultRuntimeDir $dir
CGIplusRunnerPath $top/runner/cgiplus-runner
User $vars->{user}
Group $vars->{group}
StartServers 2
Alias /c/ $top/examples/c/
<Directory $top/examples/c>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
CONF
    close $fh;
    # $vars->{httpd}: under a sanitizer build, the wrapper that preloads ASan.
    system($vars->{httpd}, '-f', "$dir/httpd.conf", '-k', 'start');
    my $up = 0;
    for (1 .. 50) {
        if (IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 1)) { $up = 1; last }
        sleep 0.1;
    }
    ok t_cmp($up, 1, "$mpm: private httpd started");

    my $out = `h2load --h1 -n $requests -c 8 -t 2 http://127.0.0.1:$port/c/hello 2>&1`;
    my ($ok2xx) = $out =~ /status codes: (\d+) 2xx/;
    ok t_cmp($ok2xx // 0, $requests, "$mpm: $requests concurrent requests (8 clients) all 2xx");

    my $pid = do { local (@ARGV, $/) = ("$dir/httpd.pid"); <> } // 0;
    chomp $pid;
    kill 'TERM', $pid if $pid =~ /^\d+$/ && $pid > 1;
    for (1 .. 50) { last unless $pid && kill 0, $pid; sleep 0.1 }
    my $log = do { local (@ARGV, $/) = ("$dir/error_log"); <> } // '';
    my $opens = () = $log =~ /CGIPLUS1026: /g;
    my $errors = () = $log =~ /\[cgiplus:(?:error|crit|emerg)\]/g;
    ok t_cmp($opens > 0 && $opens <= 32 ? 1 : 0, 1,
             "$mpm: $opens runner connections for $requests requests (pooled)");
    ok t_cmp($errors, 0, "$mpm: no module errors logged");
    # The direct path under this MPM: the runner hands requests to workers
    # itself (CGIPLUS2021) only for a worker's first request and a child's
    # first of the pool; the rest are claimed or granted in the table.
    my $relayed = () = $log =~ /CGIPLUS2021: /g;
    ok t_cmp($relayed < $requests / 10 ? 1 : 0, 1,
             "$mpm: the direct path served the requests ($relayed of $requests relayed)");
}
