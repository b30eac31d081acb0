# An administrator's set-up mistakes, each said with its id:
# - httpd does not start: CGIplusRunnerSocket without CGIplusRunnerKeyFile
#   (1203); the runner's configuration file cannot be written in
#   DefaultRuntimeDir (1605);
# - a runner started on its own (CGIplusRunnerSocket) that is not running:
#   requests 503 with Retry-After (1025), the status page too (1601); once
#   it runs, both are served;
# - a CGIplusStatic directory gone after the start (1502: 404 until it is
#   back, then served), a symbolic link loop in it (1514, 403);
# - a runner started on its own refuses to start, exit 1, saying why: its
#   socket path too long (2053), its socket path a file (2096), its socket
#   directory missing (2097), its pidfile not writable (2054).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use POSIX ();
use Time::HiRes qw(sleep time);
use lib 't/lib', 't/htdocs/pool/lib';
use PrivateHttpd qw(private_conf private_start private_dir private_log private_wait_log
                    private_get resp_code);
use FreePort qw(free_port);
use PoolTest qw(wire_key_file);

plan tests => 2 * 2 + 6 + 6 + 4 * 2;

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $bin = "$top/runner/cgiplus-runner";
my $pool = "$vars->{documentroot}/pool";
my $key = wire_key_file();

sub write_file {
    my ($file, $text, $mode) = @_;
    open my $fh, '>', $file or die "$file: $!";
    print $fh $text;
    close $fh;
    chmod $mode // 0644, $file;
}
# Runs httpd on $dir/httpd.conf in the foreground (10 s at most):
# (exit status, what it wrote, its error log). One that starts runs until
# the timeout stops it (124).
sub start_status {
    my ($dir) = @_;
    my $out = `timeout 10 '$vars->{httpd}' -f '$dir/httpd.conf' -DFOREGROUND 2>&1`;
    return ($? >> 8, $out . private_log($dir));
}

# ---- httpd does not start ----
{
    my $dir = private_dir('err-config-nokey');
    my $port = free_port();
    write_file("$dir/httpd.conf", private_conf($dir, $port, [], "CGIplusRunnerSocket $dir/ext.sock\n"));
    my ($rc, $out) = start_status($dir);
    ok t_cmp($rc, 1, 'CGIplusRunnerSocket without CGIplusRunnerKeyFile: httpd does not start');
    ok t_cmp($out, qr/CGIPLUS1203: mod_cgiplus: CGIplusRunnerSocket needs CGIplusRunnerKeyFile/,
             'and says why (1203)');
}
{
    my $dir = private_dir('err-config-rundir');
    my $port = free_port();
    mkdir "$dir/cgiplus-runner.conf";   # (a directory where the file goes)
    write_file("$dir/httpd.conf", private_conf($dir, $port, [], ''));
    my ($rc, $out) = start_status($dir);
    ok t_cmp($rc, 1, "the runner's configuration cannot be written: httpd does not start");
    ok t_cmp($out, qr/CGIPLUS1605: mod_cgiplus cannot write the runner's configuration \Q$dir\E\/cgiplus-runner\.conf/,
             'and says why (1605)');
}

# ---- the runner httpd connects to is not running ----
{
    my $dir = private_dir('err-config-ext');
    my $port = free_port();
    write_file("$dir/httpd.conf", private_conf($dir, $port, ['alias'], <<"CONF"));
CGIplusRunnerSocket $dir/ext.sock
CGIplusRunnerKeyFile $key
Alias /p/ $pool/
<Directory $pool>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
<Location /cgiplus-status>
    SetHandler cgiplus-status
</Location>
CONF
    private_start("$dir/httpd.conf", $port) or die "httpd did not start\n";
    my $r = private_get($port, '/p/app.pl');
    ok t_cmp(resp_code($r) . ($r =~ /^Retry-After: \d+/mi ? ' retry' : ''), '503 retry',
             'the runner is not running: a request gets 503 with Retry-After');
    ok t_cmp(private_wait_log($dir, qr/CGIPLUS1025: /), 1, 'and says why (1025)');
    $r = private_get($port, '/cgiplus-status');
    ok t_cmp(resp_code($r) . ($r =~ /^Retry-After: \d+/mi ? ' retry' : ''), '503 retry',
             'the status page: 503 with Retry-After');
    ok t_cmp(private_wait_log($dir, qr/CGIPLUS1601: cannot get the status of cgiplus-runner/), 1, 'and says why (1601)');
    # The runner started: both served.
    write_file("$dir/ext.conf", "socket $dir/ext.sock\nkey_file $key\nuser $vars->{user}\n", 0600);
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        open STDERR, '>>', "$dir/ext.log";
        open STDOUT, '>', '/dev/null';
        exec $bin, '--config', "$dir/ext.conf" or POSIX::_exit(127);
    }
    for (1 .. 50) { last if -S "$dir/ext.sock"; sleep 0.1 }
    ok t_cmp(resp_code(private_get($port, '/p/app.pl')), 200, 'once it runs, the request is served');
    ok t_cmp(resp_code(private_get($port, '/cgiplus-status')), 200, 'and the status page');
    kill 'TERM', $pid;
    waitpid $pid, 0;
}

# ---- the static fast path's directory ----
{
    my $dir = private_dir('err-config-static');
    my $port = free_port();
    mkdir "$dir/st";
    chmod 0755, "$dir/st";
    write_file("$dir/st/a.txt", "static a\n");
    symlink 'loop', "$dir/st/loop";
    write_file("$dir/httpd.conf", private_conf($dir, $port, [], <<"CONF"));
LogLevel info cgiplus:info
MaxConnectionsPerChild 1
StartServers 1
CGIplusStatic /st/ $dir/st
CONF
    private_start("$dir/httpd.conf", $port) or die "httpd did not start\n";
    my $r = private_get($port, '/st/loop');
    ok t_cmp(resp_code($r), 403, 'a symbolic link loop: 403');
    ok t_cmp(private_wait_log($dir, qr{\(40\)Too many levels of symbolic links: \[client [^]]+\] CGIPLUS1514: cannot serve \Q$dir\E/st/loop}), 1,
             'and says why (1514)');
    # Gone after the start: the children started from then on cannot open
    # it (each serves one connection here).
    rename "$dir/st", "$dir/st.away" or die "rename: $!";
    my @codes = map { resp_code(private_get($port, '/st/a.txt')) } 1 .. 4;
    ok t_cmp("@codes", qr/\b404\b/, "the directory gone: 404 (@codes)");
    ok t_cmp(private_wait_log($dir, qr{CGIPLUS1502: cannot open the static directory \Q$dir\E/st in this process}), 1,
             'and a child that cannot open it says so (1502)');
    rename "$dir/st.away", "$dir/st" or die "rename: $!";
    my $last;
    for (1 .. 20) { $last = private_get($port, '/st/a.txt'); last if resp_code($last) == 200; sleep 0.2 }
    ok t_cmp(resp_code($last) . ' ' . ($last =~ /\r\n\r\n(.*)\z/s ? $1 : ''), "200 static a\n", 'back: served again');
    ok t_cmp(resp_code(private_get($port, '/st/a.txt')), 200, 'and again');
}

# ---- a runner on its own that cannot start ----
{
    my $dir = private_dir('err-config-runner');
    my $long = "$dir/" . ('s' x 120) . '.sock';
    write_file("$dir/file.sock", "not a socket\n");
    my %cases = (
        2053 => ["socket $long\n", qr/CGIPLUS2053: socket path too long: \Q$long\E/, 'its socket path too long'],
        2096 => ["socket $dir/file.sock\n", qr/CGIPLUS2096: \Q$dir\E\/file\.sock exists and is not a socket; not removing it/,
                 'its socket path a file'],
        2097 => ["socket $dir/nodir/r.sock\n", qr/CGIPLUS2097: cannot listen on \Q$dir\E\/nodir\/r\.sock: No such file or directory/,
                 'its socket directory missing'],
        2054 => ["socket $dir/p.sock\npidfile $dir/nodir/r.pid\n", qr/CGIPLUS2054: cannot write pidfile \Q$dir\E\/nodir\/r\.pid: No such file or directory/,
                 'its pidfile not writable'],
    );
    for my $id (sort keys %cases) {
        my ($conf, $re, $what) = @{ $cases{$id} };
        write_file("$dir/$id.conf", "${conf}key_file $key\nuser $vars->{user}\nspool_dir $dir/spool-$id\n", 0600);
        my $pid = fork // die "fork: $!";
        if (!$pid) {
            open STDERR, '>', "$dir/$id.log";
            open STDOUT, '>', '/dev/null';
            exec $bin, '--config', "$dir/$id.conf" or POSIX::_exit(127);
        }
        my $t = time + 10;
        my $gone;
        while (!($gone = waitpid($pid, POSIX::WNOHANG())) && time < $t) { sleep 0.05 }
        kill('KILL', $pid), waitpid($pid, 0) unless $gone;
        my $status = $gone ? $? >> 8 : 'running';
        ok t_cmp($status, 1, "a runner on its own, $what: exits 1");
        my $log = do { open my $fh, '<', "$dir/$id.log"; local $/; <$fh> // '' };
        ok t_cmp($log, $re, "and says why ($id)");
    }
}
