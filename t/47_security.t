# Security: only httpd's own processes may drive the runner (they prove its
# key; a script or another process of httpd's user cannot). Workers never run as root (httpd's User by default, CGIplusUser
# per pool, only users httpd's configuration names), get a clean environment
# (the protocol's variables and configured ones), no inherited descriptors,
# their own session and process group, and the configured rlimits. The
# runner's socket is 0660 for httpd's group (root's: no script may chmod
# it) and the runner checks the peer's uid.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Socket;
use POSIX ();
use IO::Socket::UNIX;
use Time::HiRes qw(sleep);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget wire_connect wire_request wire_frames);

plan tests => 58 + 3 * 2 + 2 * 2;

my $vars = Apache::Test::config()->{vars};
my $nobody = getpwnam('nobody');
my $daemon = getpwnam('daemon');
my $hpid = do { open my $pf, '<', "$vars->{t_logs}/httpd.pid" or die $!; <$pf> =~ /(\d+)/ ? $1 : 0 };
sub field { my ($r, $k) = @_; return ($r->{body} =~ /^\Q$k\E=(.*)$/m)[0] // '' }

my $r = hget('/pool/sec/whoami.pl');
ok t_cmp($r->{code}, 200, 'whoami answers');
ok t_cmp(field($r, 'uid') =~ /^(\d+) euid=(\d+) gid=(\d+) egid=(\d+)$/ ? "$1 $2" : '',
         "$nobody $nobody", "the worker runs as httpd's User (nobody), real and effective");
ok t_cmp(field($r, 'groups'), qr/^(\d+) \1$/, 'one group, no supplementary groups');
my ($pid, $pgid, $sid) = field($r, 'pid') =~ /^(\d+) pgid=(\d+) sid=(\d+)/;
ok t_cmp("$pgid $sid", "$pid $pid", 'its own session and process group');
ok t_cmp(field($r, 'fds'), '0 1 2 3', 'only descriptors 0-3 (stdin, stdout, stderr, CGIPLUSIN)');
ok t_cmp(field($r, 'env'), 'CGIPLUSEOF,CGIPLUSEOT,CGIPLUSESC,CGIPLUSIN,GATEWAY_INTERFACE,PATH,POOL_sec,SECRET_CONF',
         'a clean environment: the protocol variables and the configured ones');
ok t_cmp(field($r, 'conf'), 'from-httpd', 'CGIplusSetEnv reaches the worker');
ok t_cmp(field($r, 'limits'), 'cpu:30,as:1610612736,nofile:64,nproc:4096',
         'CGIplusRLimit cpu, as (1536M: several digits before the suffix), nofile, nproc');

# Each worker is in a Landlock domain of its own (the runner says so,
# 2913): a script of another pool, of the same user, cannot read this
# worker's environment (its CGIplusSetEnv values) or memory, which a plain
# process of that user, outside any domain, can.
{
    open my $fh, '<', "$vars->{t_logs}/error_log" or die;
    my $log = do { local $/; <$fh> };
    ok t_cmp($log =~ /CGIPLUS2913: each worker starts in a Landlock domain of its own \(ABI \d+\)/ ? 1 : 0, 1,
             'the runner starts each worker in a Landlock domain of its own (2913)');
    my $peek = hget("/pool/peer/whoami.pl?peek=$pid");
    ok t_cmp(field($peek, 'uid') =~ /^(\d+)/ ? $1 : '', $nobody, 'another pool, the same user (nobody)');
    ok t_cmp(field($peek, 'peek_environ') . ' | ' . field($peek, 'peek_mem'),
             'refused (Permission denied) | refused (Permission denied)',
             "its script cannot read the first pool's worker's /proc/PID/environ or memory");
    pipe my $prd, my $pwr or die;
    my $kid = fork // die;
    if (!$kid) {
        close $prd;
        $) = "$nobody $nobody";
        $( = $nobody;
        $< = $> = $nobody;
        my ($e, $buf);
        my $got = open($e, '<', "/proc/$pid/environ") && sysread($e, $buf, 65536) ? $buf : "refused ($!)";
        syswrite $pwr, ($got =~ /SECRET_CONF=from-httpd/ ? "read\n" : "not read: $got\n");
        POSIX::_exit(0);
    }
    close $pwr;
    my $out = <$prd> // '';
    waitpid $kid, 0;
    ok t_cmp($out, "read\n", 'a process of that user outside any domain can (so the domain is what stops the script)');

    # Where Landlock scopes signals (ABI 6), the domain also keeps a script
    # from signalling anything but its own processes: the first pool's
    # worker, an httpd child (httpd's User, as the script) and the runner.
    my $abi = $log =~ /CGIPLUS2913: .*\(ABI (\d+)\)/ ? $1 : 0;
    my ($child) = grep { (stat "/proc/$_")[4] == $nobody } map { /(\d+)/ } `pgrep -P $hpid`;
    my ($runner) = map { /(\d+)/ } `pgrep -P $hpid -x cgiplus-runner`;
    $child //= 0; $runner //= 0;
    my $sig = hget("/pool/peer/whoami.pl?signal=$pid,$child,$runner");
    my $want = $abi >= 6 ? 'refused (Operation not permitted)' : 'may';
    ok t_cmp(join(' | ', map { field($sig, "signal_$_") } $pid, $child),
             "$want | $want", "Landlock ABI $abi: another pool's worker (pid $pid) and an httpd child (pid $child), "
             . ($abi >= 6 ? 'not to be signalled' : 'signals not scoped before ABI 6'));
    ok t_cmp(field($sig, "signal_$runner"), 'refused (Operation not permitted)', "nor the runner (pid $runner, root's)");
    ok t_cmp(field($sig, 'signal_own_child'), 'ended', 'a child of its own it ends as ever');
    # Nor may it set their resource limits, nice value or scheduling (the
    # same uid suffices for those, no ptrace access: the seccomp filter),
    # though it may read the limits and set its own.
    my $lim = hget("/pool/peer/whoami.pl?limits=$pid,$child");
    ok t_cmp(join(' | ', map { field($lim, "limits_$_") } $pid, $child),
             'read refused refused refused refused | read refused refused refused refused',
             "another pool's worker and an httpd child: open-files limit, renice, chrt, ionice refused");
    ok t_cmp(field($lim, 'limits_own'), 'may', 'its own limit, nice value, policy and I/O priority it sets');
    ok t_cmp($log =~ /CGIPLUS2913: .*\(ABI $abi\)[^\n]*, nor signal them/ ? 'scoped' : 'not scoped',
             $abi >= 6 ? 'scoped' : 'not scoped', 'the runner says so at start (2913)');
    # The domain moves nothing else: a link or rename into another
    # directory works, as under mod_cgid (git's receive-pack needs it).
    ok t_cmp(field(hget('/pool/sec/whoami.pl?move'), 'move'), 'linked renamed',
             'in its domain, a script links and renames a file into another directory');
}

# CGIplusUser: another pool, another user.
$r = hget('/pool/asuser/whoami.pl');
ok t_cmp(field($r, 'uid') =~ /^(\d+) euid=(\d+) gid=(\d+)/ ? "$1 $2" : '', "$daemon $daemon",
         'CGIplusUser daemon: that pool runs as daemon');

# Plain CGI mode: the request's variables, no CGIplus ones, three descriptors.
$r = hget('/pool/cgimode/whoami.pl');
ok t_cmp(field($r, 'fds'), '0 1 2', 'plain CGI: descriptors 0-2 only');
my $env = field($r, 'env');
ok t_cmp($env =~ /\bREQUEST_METHOD\b/ && $env =~ /\bPOOL_cgimode\b/ && $env !~ /CGIPLUS/ ? 1 : 0, 1,
         'plain CGI: CGI variables and configured ones');

# The processes of one pool share a domain around their own (runner_domain.c):
# a later run of a plain CGI script signals what an earlier one left behind
# (fossil checks its backoffice so, kill(pid, 0)), as under mod_cgid, but
# cannot trace it; another pool's script still cannot signal it.
{
    my $d = field(hget('/pool/cgimode/whoami.pl?daemon'), 'daemon');
    ok t_cmp($d, qr/^\d+$/, 'a plain CGI run leaves a process behind');
    $d ||= 0;
    my $abi = do { local (@ARGV, $/) = "$vars->{t_logs}/error_log"; <> } =~ /CGIPLUS2913: .*\(ABI (\d+)\)/ ? $1 : 0;
    my $again = hget("/pool/cgimode/whoami.pl?signal=$d&peek=$d");
    ok t_cmp(field($again, "signal_$d"), 'may', "a later run of the same script (its pool) may signal it (pid $d)");
    ok t_cmp(field($again, 'peek_environ'), $abi ? 'refused (Permission denied)' : qr/^read/,
             $abi ? 'but cannot read its environment (a domain of its own inside the pool\'s)'
                  : 'no Landlock: it reads its environment, as any process of its uid');
    ok t_cmp(field(hget("/pool/peer/whoami.pl?signal=$d"), "signal_$d"),
             $abi >= 6 ? 'refused (Operation not permitted)' : 'may',
             $abi >= 6 ? "another pool's script may not signal it" : 'signals not scoped before ABI 6');
    kill 'KILL', $d if $d;
}

# The runner refuses users the configuration does not name, and root.
my $script = "$vars->{documentroot}/pool/whoami.pl";
my $s = wire_connect();
wire_request($s, 1, [script => $script, uri => '/x', user => '0:0'], [CONTENT_LENGTH => 0]);
my @f = wire_frames($s, 10, 3);
ok t_cmp(@f ? $f[-1]{outcome} : -1, 7, 'user 0:0 is refused (bad-request)');
wire_request($s, 2, [script => $script, uri => '/x', user => '2:2'], [CONTENT_LENGTH => 0]);
@f = wire_frames($s, 10, 3);
ok t_cmp(@f ? "$f[-1]{outcome} $f[-1]{detail}" : '', '5 1',
         'a user no CGIplusUser names is refused (not-found, EPERM: 403)');
{
    my $l = do { local (@ARGV, $/) = "$vars->{t_logs}/error_log"; <> };
    ok t_cmp($l, qr{CGIPLUS2077: request 2 for \S+/pool/whoami\.pl names a user the runner may not run scripts as \(not allowed by allow_user\); refused},
             'and the runner says so (2077)');
}
# The same for a WebSocket upgrade (its own pools, runner_ws_conn.c).
my $log_off = -s "$vars->{t_logs}/error_log";
wire_request($s, 3, [script => $script, uri => '/x', user => '2:2', mode => 'websocket'],
             [CONTENT_LENGTH => 0]);
@f = wire_frames($s, 10, 3);
ok t_cmp(@f ? "$f[-1]{outcome} $f[-1]{detail}" : '', '5 1',
         'an upgrade naming that user is refused the same way');
open my $lf, '<', "$vars->{t_logs}/error_log" or die $!;
seek $lf, $log_off, 0;
ok t_cmp(scalar(grep { /CGIPLUS2822: WebSocket upgrade 3 for \S+whoami\.pl names a user the runner may not run scripts as; refused/ } <$lf>),
         1, 'the runner says so (2822)');
close $s;

# The socket: 0660, root's in httpd's group; never httpd's user's, whose
# scripts could chmod it (000: no new child reaches the runner again).
my $sock = "$vars->{t_logs}/cgiplus-runner.sock";
my @st = stat $sock;
my $group = getgrnam($vars->{group}) // (getpwnam('nobody'))[3];
ok t_cmp(sprintf('%o %d %d', $st[2] & 07777, $st[4], $st[5]), "660 0 $group",
         'the socket is 0660, owned by root, in the group of httpd\'s user');
ok t_cmp(-S $sock ? 1 : 0, 1, 'and is a socket');

# Past the file mode, the peer's uid is checked (SO_PEERCRED).
chmod 0666, $sock;
pipe my $rd, my $wr or die;
my $kid = fork // die;
if (!$kid) {
    close $rd;
    $wr->autoflush(1);
    my $msg = eval {
        $) = "$daemon $daemon";
        $( = $daemon;
        $< = $> = $daemon;
        my $c = IO::Socket::UNIX->new(Peer => $sock, Type => SOCK_STREAM)
            or return "connect failed: $!\n";
        local $SIG{PIPE} = 'IGNORE';
        syswrite $c, pack('CCCCnnNN', 0x43, 0x50, 1, 1, 0, 0, 0, 8) . pack('nnN', 1, 0, $$);
        my $n = sysread $c, my $buf, 64;
        "uid $> read " . ($n // "error $!") . "\n";
    } // "died: $@";
    print $wr $msg;
    POSIX::_exit(0);
}
close $wr;
my $out = <$rd> // '';
waitpid $kid, 0;
chmod 0660, $sock;
ok t_cmp($out, qr/^uid $daemon read (0|error Connection reset by peer)$/,
         'a connection from another uid is closed without an answer');
open my $fh, '<', "$vars->{t_logs}/error_log" or die;
my $log = do { local $/; <$fh> };
ok t_cmp($log =~ /CGIPLUS2036: refused a connection from uid $daemon/ ? 1 : 0, 1,
         'and logged (2036)');
ok t_cmp(sprintf('%o', (stat $sock)[2] & 07777), '660', 'the socket mode is restored');

# httpd's user (its scripts) cannot chmod the socket: 000 would keep every
# new httpd child from the runner (all requests 503) until a restart.
pipe $rd, $wr or die;
$kid = fork // die;
if (!$kid) {
    close $rd;
    $wr->autoflush(1);
    $) = "$nobody $nobody";
    $( = $nobody;
    $< = $> = $nobody;
    print $wr (chmod(0, $sock) ? "changed\n" : "refused: $!\n");
    POSIX::_exit(0);
}
close $wr;
$out = <$rd> // '';
waitpid $kid, 0;
chmod 0660, $sock;
ok t_cmp($out, qr/^refused: Operation not permitted$/, "httpd's user cannot chmod the socket");

# Who may drive the runner (docs/RUNNER.md): a script runs as httpd's user,
# so it passes the socket's mode and SO_PEERCRED; it must still be dropped
# at its first frame, since only httpd's processes hold the key. Each try
# would run /usr/bin/touch as daemon with a forged REMOTE_USER, then ask
# for STATUS (every pool's settings, CGIplusSetEnv values included).
my $marker = "/tmp/cgiplus-attack-$$";
sub attack_checks {
    my ($who, $body) = @_;
    my $f = sub { ($body =~ /^\Q$_[0]\E=(.*)$/m)[0] // '' };
    ok t_cmp($f->('uid'), $nobody, "$who runs as httpd's user (nobody)");
    ok t_cmp($f->('nohello'), '0 bytes, eof', "$who: frames without HELLO: closed, no answer");
    ok t_cmp($f->('oldhello'), '0 bytes, eof', "$who: a HELLO without the key: closed, no answer");
    ok t_cmp($f->('badkey'), '0 bytes, eof', "$who: a HELLO with a wrong key: closed, no answer");
    ok t_cmp($f->('memory'), qr/^0 of [1-9]\d*$/,
             "$who cannot open the memory or environment of httpd's or the runner's processes");
    # The direct path's table and channels (docs/DESIGN.md, "No new door").
    ok t_cmp($f->('shm'), 0, "$who: no name of ours in /dev/shm");
    ok t_cmp($f->('procfds'), qr/^0 of [1-9]\d*$/,
             "$who cannot list the descriptors or mappings of httpd's or the runner's processes");
}
my $before = -s "$vars->{t_logs}/error_log";
for my $url ('/pool/sec/attack.pl', '/pool/cgimode/attack.pl') {
    $r = hget("$url?sock=$sock&marker=$marker&httpd=$hpid");
    ok t_cmp($r->{code}, 200, "$url answers");
    attack_checks($url eq '/pool/sec/attack.pl' ? 'a CGIplus script' : 'a plain CGI script',
                  $r->{body});
    my ($fds) = $r->{body} =~ /^fds=(.*)$/m;
    ok t_cmp(join(' ', map { /^(\d+):/ } split ' ', $fds // ''),
             $url eq '/pool/sec/attack.pl' ? '0 1 2 3' : '0 1 2',
             "$url: only its own descriptors ($fds)");
    ok t_cmp(($fds // '') =~ /memfd/ ? 1 : 0, 0, "$url: no memfd among them");
}
# The same from a process of httpd's user that httpd did not start.
my $attack = "$vars->{documentroot}/pool/attack.pl";
my $cli = open(my $ph, '-|') // die "fork: $!";
if (!$cli) {
    my $gid = (getpwnam('nobody'))[3];
    $) = "$gid $gid";
    $( = $gid;
    $< = $> = $nobody;
    $ENV{QUERY_STRING} = "sock=$sock&marker=$marker&httpd=$hpid";
    exec $^X, $attack or POSIX::_exit(127);
}
my $cli_out = do { local $/; <$ph> } // '';
close $ph;
attack_checks('a local process of httpd\'s user', $cli_out);
my @made = glob("$marker-*");
ok t_cmp(scalar(@made), 0, 'no attempt ran its executable (no marker file)');
unlink @made;
open $fh, '<', "$vars->{t_logs}/error_log" or die;
seek $fh, $before, 0;
$log = do { local $/; <$fh> };
my $refused = () = $log =~ /CGIPLUS2200: refused a connection from pid \d+ uid $nobody: its first frame \((?:BEGIN|HELLO), \d+ bytes\) is not a HELLO with httpd's key/g;
ok t_cmp($refused, 9, 'each of the nine tries is logged (2200)');
ok t_cmp(hget('/pool/sec/whoami.pl')->{code}, 200, "httpd's own connections still work");

# The runner itself runs as root here (it must switch users), never its workers.
my @ps = `ps -o uid= -p $pid`;
ok t_cmp(($ps[0] // '') =~ /^\s*(\d+)/ ? $1 : -1, $nobody, 'the worker process is not root');
