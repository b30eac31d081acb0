# A FastCGI application's SIGTERM handler (its cleanup at the end of its
# process) under mod_fcgid and under the fcgid-script drop-in, the same
# configuration text. mod_fcgid stops a process (FcgidMaxRequestsPerProcess
# reached, httpd stopping) with SIGTERM while it waits in accept(), so a
# Perl FCGI program's $SIG{TERM} runs. The runner keeps the connection
# between requests and sent SIGTERM as it ended it: the signal came while
# FCGI read that connection, FCGI took it for the connection's end and
# went back to accept(), the Perl handler never ran, and the process was
# killed (SIGKILL, 2071) 2 s later. Now the signal follows the connection's
# end once the process is back in accept(): the handler runs, the process
# exits 0. So with CGIplusFastCGIConnection per-request (no kept
# connection; the signal waits 100 ms, the program may be on its way back
# from its last request). And on a loaded machine (made so with strace,
# below): the signal waits until the program is back in accept().
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir libexec private_log
                    private_wait_log);
use FreePort qw(free_port);
use AppTest qw(write_file curl lines_of);
use POSIX ();
use Time::HiRes qw(sleep time);

plan tests => 3 * 4 + 2 + 2 * 2,
    need { 'needs FCGI (libfcgi-perl)' => !system('perl -MFCGI -e1 2>/dev/null'),
           'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so' };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/fcgid_term";
my $lib = libexec();

# waits (10 s at most) until $f has $n lines; its lines
sub wait_lines {
    my ($f, $n) = @_;
    my $t = time + 10;
    sleep 0.1 while time < $t && (my @l = lines_of($f)) < $n;
    return lines_of($f);
}

for my $peer ('mod_fcgid', 'mod_cgiplus', 'per-request') {
    my $port = free_port();
    my $base = "http://127.0.0.1:$port";
    fresh_dir($dir);
    mkdir "$dir/$_" for qw(once keep tmp);
    chmod 0755, "$dir/once", "$dir/keep";
    chmod 0777, "$dir/tmp";
    my $app = <<"PL";
#!/usr/bin/perl
use FCGI;
my (\$ledger) = \$0 =~ m{/(once|keep)/app\\.fcgi\\z};
\$SIG{TERM} = sub {
    open my \$fh, '>>', "$dir/tmp/\$ledger";
    print \$fh "TERM\\n";
    close \$fh;
    exit 0;
};
my \$req = FCGI::Request();
while (\$req->Accept() >= 0) { print "Content-Type: text/plain\\r\\n\\r\\npid=\$\$\\n" }
PL
    write_file("$dir/once/app.fcgi", $app, 0755);
    write_file("$dir/keep/app.fcgi", $app, 0755);
    my $load = $peer eq 'mod_fcgid' ? "LoadModule fcgid_module $lib/mod_fcgid.so\n" : '';
    # the drop-in with a connection per request: no kept connection to
    # end, and the signal still finds the process back in accept()
    $load = "CGIplusFastCGIConnection per-request\n" if $peer eq 'per-request';
    my $conf = "$dir/httpd.conf";
    # the two directories in virtual hosts of their own, one with
    # FcgidMaxRequestsPerProcess 1
    write_file($conf, private_conf($dir, $port, [qw(mime)], <<"CONF"), 0644);
$load
TypesConfig /etc/mime.types
FcgidIPCDir $dir/ipc
FcgidErrorScanInterval 1
AddHandler fcgid-script .fcgi
<Directory $dir>
    Options +ExecCGI
    Require all granted
</Directory>
<VirtualHost 127.0.0.1:$port>
    ServerName once.test
    DocumentRoot $dir/once
    FcgidMaxRequestsPerProcess 1
</VirtualHost>
<VirtualHost 127.0.0.1:$port>
    ServerName keep.test
    DocumentRoot $dir/keep
</VirtualHost>
CONF
    ok t_cmp(private_start($conf, $port), 1, "$peer: starts");

    my @codes;
    for my $i (1 .. 3) {
        push @codes, (curl('-H', 'Host: once.test', "$base/app.fcgi"))[0];
        wait_lines("$dir/tmp/once", $i);
    }
    ok t_cmp("@codes", '200 200 200', "$peer: 3 requests, each on a process of its own (FcgidMaxRequestsPerProcess 1)");
    ok t_cmp(join(',', wait_lines("$dir/tmp/once", 3)), 'TERM,TERM,TERM',
             "$peer: each process, stopped after its request, ran its SIGTERM handler");

    my ($code) = curl('-H', 'Host: keep.test', "$base/app.fcgi");
    ($code) = curl('-H', 'Host: keep.test', "$base/app.fcgi") if $code == 200;
    my $log = private_log($dir);
    private_stop("$dir/httpd.pid");
    ok t_cmp("$code " . join(',', wait_lines("$dir/tmp/keep", 1)), '200 TERM',
             "$peer: a process still running when httpd stops runs its SIGTERM handler");
    if ($peer ne 'mod_fcgid') {
        # httpd's parent is gone once it has signalled the runner, which
        # logs each end as it reaps it: the four, or 10 s.
        my $ended = qr/CGIPLUS2028: worker pid \d+ of \S+ ended: \w+ \((exited with code \d+|killed by signal \d+)\)/;
        my $t = time + 10;
        sleep 0.1 while time < $t && (() = private_log($dir) =~ /$ended/g) < 4;
        $log = private_log($dir);
        my @killed = $log =~ /(CGIPLUS2071: .*|CGIPLUS2050: .*)/g;
        my @ended = $log =~ /$ended/g;
        ok t_cmp(join(' ', @killed) . ' | ' . join(', ', @ended),
                 ' | ' . join(', ', ('exited with code 0') x 4),
                 'none was killed after SIGTERM (2071, 2050); all 4 exited 0');
    }
}

# A loaded machine, made so: strace delays each read and close of the
# process by 0.3 s from its second request on, so that it is not back in
# accept() 100 ms after that request ended (libfcgi's close reads to the
# end of file first). At httpd's stop its SIGTERM waits until a thread of
# it is in accept() (/proc/PID/task/*/syscall), so its handler runs. Sent
# after a fixed 100 ms, it came in that read: FCGI went on into accept()
# with the handler pending, and the process was killed 2 s later.
for my $mode ('keep', 'per-request') {
  {
    # strace is one of run-tests' packages: without it (or ptrace) this
    # fails rather than skips, a skip being no pass
    die "needs strace\n" unless -x '/usr/bin/strace';
    my $port = free_port();
    my $base = "http://127.0.0.1:$port";
    fresh_dir($dir);
    mkdir "$dir/$_" for qw(keep tmp);
    chmod 0755, "$dir/keep";
    chmod 0777, "$dir/tmp";
    write_file("$dir/keep/app.fcgi", <<"PL", 0755);
#!/usr/bin/perl
use FCGI;
\$SIG{TERM} = sub {
    open my \$fh, '>>', "$dir/tmp/keep";
    print \$fh "TERM\\n";
    close \$fh;
    exit 0;
};
my \$req = FCGI::Request();
while (\$req->Accept() >= 0) { print "Content-Type: text/plain\\r\\n\\r\\npid=\$\$\\n" }
PL
    my $conf = "$dir/httpd.conf";
    write_file($conf, private_conf($dir, $port, [qw(mime)], <<"CONF"), 0644);
CGIplusFastCGIConnection $mode
TypesConfig /etc/mime.types
AddHandler fcgid-script .fcgi
<Directory $dir>
    Options +ExecCGI
    Require all granted
</Directory>
DocumentRoot $dir/keep
CONF
    private_start($conf, $port);
    my (undef, undef, $body) = curl("$base/app.fcgi");
    my ($pid) = $body =~ /^pid=(\d+)$/m;
    my $tracer = fork // die "fork: $!";
    if (!$tracer) {
        open STDERR, '>', '/dev/null';
        { exec 'strace', '-f', '-p', $pid, '-o', '/dev/null',
               '-e', 'inject=read,recvfrom,close:delay_enter=300000' }
        POSIX::_exit(127);
    }
    # attached: its TracerPid
    my $traced = 0;
    for (1 .. 50) {
        open my $st, '<', "/proc/$pid/status" or last;
        $traced = 1, last if grep { /^TracerPid:\s*[1-9]/ } <$st>;
        sleep 0.1;
    }
    if (!$traced) {
        kill 'TERM', $tracer;
        waitpid $tracer, 0;
        private_stop("$dir/httpd.pid");
        die "strace cannot attach to the worker here (ptrace not allowed)\n";
    }
    my ($code) = curl("$base/app.fcgi");
    private_stop("$dir/httpd.pid");
    my @term = wait_lines("$dir/tmp/keep", 1);
    kill 'TERM', $tracer;
    waitpid $tracer, 0;
    ok t_cmp("$code " . join(',', @term), '200 TERM',
             "$mode, slowed down by strace: at httpd's stop its SIGTERM handler runs");
    # The runner logs its end when it reaps it, after httpd's parent left
    # (strace slows its exit): CI once read the log before.
    my $ended = qr/CGIPLUS2028: worker pid $pid of \S+ ended: \w+ \((exited with code \d+|killed by signal \d+)\)/;
    private_wait_log($dir, $ended, 10);
    my @ended = private_log($dir) =~ /$ended/g;
    ok t_cmp("@ended", 'exited with code 0', "$mode: it exited 0, not killed");
  }
}
