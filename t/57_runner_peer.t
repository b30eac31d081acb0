# The module authenticates the runner before it proves itself (issue 20,
# hole 5). Where a script (httpd's User) could write into the runner
# socket's directory, it could rename the socket, listen in its place and
# be sent the connection key by the next httpd child: so httpd refuses to
# start then, with a sentence; and a child sends HELLO only to the runner
# it knows (the pid httpd started, or a process of root, or of
# CGIplusRunnerUser for a runner started on its own). An impostor
# listening as nobody in the runner's place gets nothing (the test reads
# what it received), and the requests meanwhile are answered 503.
use strict;
use lib "t/lib";
use FreePort qw(free_port);
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);
use LWP::UserAgent;
use File::Path qw(make_path remove_tree);
use IO::Select;
use IO::Socket::UNIX;
use POSIX ();
use Socket qw(SOCK_STREAM);
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_check private_start private_stop fresh_dir);

plan tests => 25;

my $vars = Apache::Test::config()->{vars};
my $logs = $vars->{t_logs};
my $errlog = "$logs/error_log";
my ($nobody, $nogroup) = ((getpwnam('nobody'))[2], (getgrnam('nogroup'))[2]);

sub slurp { open my $fh, '<', $_[0] or return ''; local $/; return <$fh> // '' }
sub pid_in { my $t = slurp($_[0]); return $t =~ /^(\d+)/ ? $1 : 0 }
sub log_since { my $t = slurp($errlog); return substr($t, $_[0] // 0) }

# ---- Startup: the socket's directory, and those above it.
my $dir = "$logs/peertest";
my $port = free_port();
fresh_dir($dir);
my $rt = "$dir/run";
fresh_dir($rt);
my $conf = "$dir/httpd.conf";
sub write_conf {
    my ($extra) = @_;
    open my $fh, '>', $conf or die "$conf: $!";
    (my $c = private_conf($dir, $port, [], $extra // '')) =~ s/^DefaultRuntimeDir .*$/DefaultRuntimeDir $rt/m;
    print $fh $c;
    close $fh;
}
write_conf();
my ($rc, $out) = private_check($conf);
ok t_cmp($rc, 0, 'a runtime directory of root, mode 0755: httpd -t passes') or print STDERR "# $out";

my $said = qr/CGIPLUS1137: mod_cgiplus: \Q$rt\E \(the directory of the runner's socket \Q$rt\E\/cgiplus-runner\.sock\) is writable by httpd's User; scripts run as httpd's User \(nobody\), and one could put a socket of its own in the runner's place/;
chmod 0777, $rt;
($rc, $out) = private_check($conf);
ok t_cmp("$rc " . ($out =~ $said ? 'said' : $out), '1 said',
         'mode 0777: httpd -t refuses, saying why');
chmod 01777, $rt;
($rc, $out) = private_check($conf);
ok t_cmp("$rc " . ($out =~ $said ? 'said' : $out), '1 said', 'mode 01777 (sticky) too');
chmod 0755, $rt;
chown $nobody, -1, $rt;
($rc, $out) = private_check($conf);
ok t_cmp("$rc " . ($out =~ $said ? 'said' : $out), '1 said', "owned by httpd's User (0755) too");
chown 0, 0, $rt;
chmod 0775, $rt;
chown -1, 4242, $rt; # a group nobody is not in
($rc, $out) = private_check($conf);
ok t_cmp("$rc " . ($out =~ /CGIPLUS1137: .*is writable by its group or others, and not sticky/ ? 'said' : $out),
         '1 said', 'writable by a group httpd\'s User is not in, not sticky: refused too');
chown 0, 0, $rt;
chmod 0755, $rt;
chmod 0777, $dir;
($rc, $out) = private_check($conf);
ok t_cmp("$rc " . ($out =~ /CGIPLUS1137: mod_cgiplus: \Q$dir\E \(on the way to the runner's socket \Q$rt\E\/cgiplus-runner\.sock\) is writable by httpd's User, so the directory below it can be replaced/ ? 'said' : $out),
         '1 said', 'a directory above it writable by httpd\'s User: refused');
chmod 0755, $dir;
chmod 0777, $rt;
$out = `'$vars->{httpd}' -f '$conf' -k start 2>&1`;
ok t_cmp($? >> 8 ? 'refused' : 'started', 'refused', 'httpd -k start refuses as well');
ok t_cmp($out =~ $said ? 1 : 0, 1, 'saying why') or print STDERR "# $out";
private_stop("$dir/httpd.pid");
chmod 0755, $rt;

# CGIplusRunnerUser: only with CGIplusRunnerSocket, never httpd's User.
write_conf("CGIplusRunnerUser daemon\n");
($rc, $out) = private_check($conf);
ok t_cmp("$rc " . ($out =~ /CGIPLUS1135: .*CGIplusRunnerUser .* needs CGIplusRunnerSocket/ ? 'said' : $out),
         '1 said', 'CGIplusRunnerUser without CGIplusRunnerSocket is refused');
my $keyf = "$vars->{t_conf}/generated/runner.key";
write_conf("CGIplusRunnerSocket $rt/other.sock\nCGIplusRunnerKeyFile $keyf\nCGIplusRunnerUser nobody\n");
($rc, $out) = private_check($conf);
ok t_cmp("$rc " . ($out =~ /CGIPLUS1136: .*CGIplusRunnerUser is httpd's User \(nobody\)/ ? 'said' : $out),
         '1 said', "CGIplusRunnerUser naming httpd's User is refused");
write_conf("CGIplusRunnerSocket $rt/other.sock\nCGIplusRunnerKeyFile $keyf\nCGIplusRunnerUser no-such-user-here\n");
($rc, $out) = private_check($conf);
ok t_cmp("$rc " . ($out =~ /CGIplusRunnerUser: there is no user named 'no-such-user-here'/ ? 'said' : $out),
         '1 said', 'an unknown CGIplusRunnerUser is refused');

# An impostor: a process of nobody listening on $path (in a directory
# nobody may write); returns its pid once it listens. What it receives goes
# to $path.got: the count of connections, then the bytes.
sub impostor {
    my ($path) = @_;
    pipe my $rd, my $wr or die "pipe: $!";
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        close $rd;
        POSIX::setgid($nogroup);
        POSIX::setuid($nobody);
        POSIX::_exit(2) if $> != $nobody;
        unlink $path;
        my $l = IO::Socket::UNIX->new(Local => $path, Type => SOCK_STREAM, Listen => 64)
            or POSIX::_exit(3);
        print $wr "ready\n";
        close $wr;
        my ($conns, $got, $end) = (0, '', time + 40);
        my $sel = IO::Select->new($l);
        local $SIG{TERM} = sub { $end = 0 };
        while (time < $end) {
            next unless $sel->can_read(0.2);
            my $c = $l->accept or next;
            $conns++;
            my $cs = IO::Select->new($c);
            my $t = time + 1;
            while (time < $t && $cs->can_read($t - time)) {
                sysread($c, my $b, 4096) or last;
                $got .= $b;
            }
            close $c;
            open my $fh, '>', "$path.got" or POSIX::_exit(4);
            print $fh "$conns\n$got";
            close $fh;
        }
        POSIX::_exit(0);
    }
    close $wr;
    my $ready = <$rd> // '';
    return $ready eq "ready\n" ? $pid : 0;
}
sub impostor_got {
    my ($path, $pid) = @_;
    kill 'TERM', $pid;
    waitpid $pid, 0;
    return slurp("$path.got") =~ /\A(\d+)\n(.*)\z/s ? ($1, $2) : (0, '');
}

# ---- An httpd that does not start as root: its children, the runner and
# the scripts are all nobody, so only the runner's pid tells it apart.
{
    my $nd = "$logs/peer-nonroot";
    my $nport = free_port();
    fresh_dir($nd);
    chown $nobody, $nogroup, $nd;
    my $nconf = "$nd/httpd.conf";
    open my $fh, '>', $nconf or die "$nconf: $!";
    print $fh private_conf($nd, $nport, ['alias'], <<"CONF");
StartServers 1
Alias /s/ $vars->{documentroot}/pool/
<Directory $vars->{documentroot}/pool>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
CONF
    close $fh;
    my $nget = sub {
        my $ua = LWP::UserAgent->new(timeout => 30);
        return $ua->get("http://127.0.0.1:$nport/s/app.pl")->code;
    };
    system('setpriv', "--reuid=$nobody", "--regid=$nogroup", '--clear-groups',
           $vars->{httpd}, '-f', $nconf, '-k', 'start');
    my $up = 0;
    for (1 .. 50) { last if ($up = $nget->()) == 200; sleep 0.2 }
    ok t_cmp($up, 200, 'an httpd started as nobody serves (its runner runs as nobody too)');
    my $rpid = sub { my $t = slurp("$nd/cgiplus-runner.pid"); $t =~ /^(\d+)/ ? $1 : 0 };
    my $old = $rpid->();
    kill 'KILL', $old;
    my $new = 0;
    for (1 .. 50) { $new = $rpid->(); last if $new && $new != $old && -S "$nd/cgiplus-runner.sock"; sleep 0.1 }
    my @after = map { $nget->() } 1 .. 3;
    ok t_cmp("@after", '200 200 200', "after a runner restart (pid $old, then $new) the children "
             . 'forked before it still give it the key');
    my $nsock = "$nd/cgiplus-runner.sock";
    my $ip = impostor("$nd/imp.sock");
    rename $nsock, "$nsock.real";
    rename "$nd/imp.sock", $nsock;
    my $noff = length slurp("$nd/error_log");
    kill 'USR1', pid_in("$nd/httpd.pid");
    sleep 2;
    my @codes = map { $nget->() } 1 .. 2;
    my ($n, $got) = impostor_got("$nd/imp.sock", $ip);
    rename "$nsock.real", $nsock;
    ok t_cmp($ip && $n > 0 ? 1 : 0, 1, "an impostor of nobody in its place was connected to ($n)");
    ok t_cmp(length($got), 0, 'and received nothing');
    ok t_cmp("@codes", '503 503', 'meanwhile requests are answered 503');
    ok t_cmp(substr(slurp("$nd/error_log"), $noff) =~ /CGIPLUS1133: .*\(pid \d+, uid $nobody\) is not the runner: that is pid $new/ ? 1 : 0,
             1, 'logged: the runner is the pid httpd started');
    my $back = 0;
    for (1 .. 20) { last if ($back = $nget->()) == 200; sleep 0.25 }
    ok t_cmp($back, 200, 'the runner back in place, requests are served');
    private_stop("$nd/httpd.pid");
}

# ---- An impostor in the runner's place, listening as nobody.
my $sock = "$logs/cgiplus-runner.sock";
my $key = do { my $h = slurp($keyf); $h =~ /([0-9a-f]{64})/ ? pack('H*', $1) : die "no key" };
ok t_cmp(GET('/pool/app.pl')->code, 200, 'the suite\'s server serves');
my $imp = "$logs/impostor";
remove_tree($imp);
make_path($imp);
chown $nobody, $nogroup, $imp;
chmod 0700, $imp;
my $ipid = impostor("$imp/sock");
# However the test ends, the runner's socket is put back.
END { rename "$sock.real", $sock if $sock && -e "$sock.real" }
rename $sock, "$sock.real" or die "rename $sock: $!";
rename "$imp/sock", $sock or die "rename impostor: $!";
# A graceful restart: new httpd children, with no connection to the runner
# yet (the attack killed a child instead).
my $off = -s $errlog;
kill 'USR1', pid_in("$logs/httpd.pid");
sleep 2;
my @codes = map { GET("/pool/app.pl?n=$_")->code } 1 .. 3;
my ($conns, $got) = impostor_got("$imp/sock", $ipid);
rename "$sock.real", $sock or die "rename back: $!";
ok t_cmp($ipid ? 1 : 0, 1, 'the impostor listened as nobody');
ok t_cmp($conns > 0 ? 1 : 0, 1, "httpd children connected to it ($conns connections)");
ok t_cmp(length($got) . ' bytes, key ' . (index($got, $key) >= 0 ? 'sent' : 'not sent'),
         '0 bytes, key not sent', 'it received nothing: no HELLO, no key');
ok t_cmp("@codes", '503 503 503', 'meanwhile requests are answered 503');
my $log = log_since($off);
ok t_cmp($log =~ /CGIPLUS1133: the process listening on \Q$sock\E \(pid \d+, uid $nobody\) is not the runner/ ? 1 : 0,
         1, 'and the impostor is logged with its pid and uid');
my $r;
for (1 .. 20) {
    $r = GET('/pool/app.pl');
    last if $r->code == 200;
    sleep 0.25;
}
ok t_cmp($r->code, 200, 'with the runner\'s socket back, requests are served again');
remove_tree($imp);
