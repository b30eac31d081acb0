# Security, a hostile script's further tries (docs/RUNNER.md, "Another
# pool"), past t/47_security.t and t/47_security_fcgi.t, from every worker
# kind that runs Perl (a CGIplus worker, plain CGI under CGIplusCompat, the
# Perl engine, a FastCGI worker), each a pool of its own, all of httpd's
# User (t/htdocs/hostile/redteam_lib.pl): the /proc files that need ptrace
# access (mem, environ, auxv, stack, syscall, io, smaps, maps, pagemap,
# personality, fdinfo, map_files) of the runner, each of its threads (the
# pools' domain threads) and each httpd child's, and of another pool's
# worker; ptrace and a signal to each of their threads; the runtime
# directory (the runner's configuration, its key file, its spool, the
# response spool, its pidfile and socket); a terminal to push input into
# (TIOCSTI); stderr lines posing as the runner's. None gets through.
# mod_cgid's scripts, and SSI's #exec cmd of mod_cgiplus's own exec
# element (a private httpd with only mod_cgiplus), run outside the runner
# as httpd's User: each httpd process that drops root now enters a
# Landlock domain of its own first (cgiplus_domain.c), so they no longer
# read another pool's worker either; before, both read its environment
# (the pool's CGIplusSetEnv value) and memory. No process of httpd or the
# runner binds an abstract UNIX socket a script could take, and the status
# page is served only where a scope says SetHandler cgiplus-status. A
# WebSocket worker (t/htdocs/ws/redteam.pl, a private httpd) tries the same.
# Where an httpd child cannot enter its domain it says so (3790; strace
# refusing landlock_restrict_self), and SSI's #exec cmd reads the worker.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use POSIX ();
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget runner_pid wait_for);
use lib 't/lib';
use FreePort qw(free_port);
use RawHTTP qw(raw_request);
use PrivateHttpd qw(private_conf private_dir private_start private_stop);
use WsTest qw(ws_start ws_stop ws_py);

my @kinds = (['plus', 'redteam.pl'], ['compat', 'redteam.pl'], ['eperl', 'redteam.pl'],
             ['fcgi', 'redteam_fcgi.pl']);
plan tests => 3 + 8 * @kinds + 3 + 2 + 6 + 4 + 7;

my $vars = Apache::Test::config()->{vars};
my $nobody = getpwnam('nobody');
sub field { my ($r, $k) = @_; return ($r->{body} =~ /^\Q$k\E=(.*)$/m)[0] // '' }
sub slurp { my ($f) = @_; open my $fh, '<', $f or return ''; local $/; return <$fh> // '' }
my $logf = "$vars->{t_logs}/error_log";
my $abi = slurp($logf) =~ /CGIPLUS2913: .*\(ABI (\d+)\)/ ? $1 : 0;
ok t_cmp($abi >= 2 ? 1 : 0, 1, "the runner starts workers in Landlock domains (ABI $abi)");

my $hpid = slurp("$vars->{t_logs}/httpd.pid") =~ /(\d+)/ ? $1 : 0;
sub children { return grep { ((stat "/proc/$_")[4] // -1) == $nobody } map { /(\d+)/ } `pgrep -P $hpid` }
my $victim = (field(hget('/pool/sec/whoami.pl'), 'pid') =~ /^(\d+)/)[0] // 0;
my @children = children();
my $runner = runner_pid() // 0;
ok t_cmp($victim && @children && $runner ? 1 : 0, 1,
         "another pool's worker ($victim), httpd's children (@children), the runner ($runner)");

# No abstract UNIX socket (a name any process may bind first) among the
# sockets of httpd's processes and the runner: /proc/net/unix by inode.
{
    my %ours;
    for my $p ($hpid, $runner, map { /(\d+)/ } `pgrep -P $hpid`) {
        $ours{$1} = 1 for grep { defined } map { (readlink($_) // '') =~ /^socket:\[(\d+)\]$/ } glob("/proc/$p/fd/*");
    }
    open my $u, '<', '/proc/net/unix' or die $!;
    my @abstract = grep { my @f = split; @f >= 8 && $f[7] =~ /^@/ && $ours{$f[6]} } <$u>;
    ok t_cmp(scalar(@abstract) . ' of ' . (keys(%ours) ? 'some' : 'none'), '0 of some',
             'no abstract UNIX socket among httpd\'s and the runner\'s sockets');
}

my $q = "victim=$victim&children=" . join(',', @children) . "&runner=$runner"
      . "&rundir=$vars->{t_logs}&key=$vars->{t_conf}/generated/runner.key";
my $sig_none = $abi >= 6; # signals scoped from ABI 6 on
sub alive { return grep { -e "/proc/$children[$_]" } 0 .. $#children }
for my $k (@kinds) {
    my ($kind, $script) = @$k;
    my $r = hget("/hostile/$kind/$script?$q&tag=$kind");
    ok t_cmp($r->{code}, 200, "$kind: the probe runs");
    ok t_cmp(join(' | ', map { field($r, "runner_$_") } qw(proc ptrace tgkill)),
             qr/^none of \d+ \| 0 of (\d+) \| 0 of \1$/,
             "$kind: the runner's /proc files, ptrace and signals to each of its threads: refused");
    my @ch = alive($r);
    my $sig = $sig_none ? '0' : '\d+';
    ok t_cmp(scalar(grep { my $i = $_; join(' | ', map { field($r, "child${i}_$_") } qw(proc ptrace tgkill))
                           =~ /^none of \d+ \| 0 of (\d+) \| $sig of \1$/ } @ch),
             scalar(@ch) || -1, "$kind: every httpd child's /proc files, ptrace of its threads"
             . ($sig_none ? ' and signals' : '') . ': refused');
    ok t_cmp(join(' | ', map { field($r, "victim_$_") } qw(proc ptrace tgkill)),
             qr/^none of \d+ \| 0 of 1 \| \Q${\($sig_none ? 0 : 1)}\E of 1$/,
             "$kind: another pool's worker: /proc files and ptrace refused"
             . ($sig_none ? ', signals too' : ' (signals not scoped before ABI 6)'));
    ok t_cmp(join(' ', map { field($r, $_) } qw(conf keyfile spool_list respool_list spool_create pidfile_write sock_chmod)),
             join(' ', ('refused (Permission denied)') x 6, 'refused (Operation not permitted)'),
             "$kind: the runner's configuration, key file, spool (list, make), response spool (list), pidfile, socket mode");
    ok t_cmp(field($r, 'devtty') . ' | ' . field($r, 'tiocsti'),
             'error (No such device or address) | error (Inappropriate ioctl for device) x3',
             "$kind: no controlling terminal, nothing to push input into");
    ok t_cmp(field($r, 'own_fds'), $kind eq 'fcgi' ? '0:socket 1:pipe 2:pipe 3:socket'
                                   : $kind eq 'compat' ? '0:pipe 1:pipe 2:pipe'
                                   : $kind eq 'eperl' ? qr/^0:\S+ 1:pipe 2:pipe 3:pipe(?: \d+:(?:pipe|\/[^ ]*))*$/
                                   : '0:pipe 1:pipe 2:pipe 3:pipe',
             "$kind: only its own descriptors");
    # each forged line is logged behind the script's own prefix, escaped
    my @forged = grep { /forged-$kind line/ } split /\n/, slurp($logf);
    ok t_cmp(scalar(grep { /^\[[^]]+\] \[cgiplus:error\] \[pid \d+(?::tid \d+)?\] \[client [^]]+\] CGIPLUS1050: stderr from \S+\Q$script\E \(pid \d+\): (?:\\r)?\[/
                           && !/\x1b|\r/ } @forged) . ' of ' . scalar(@forged),
             '2 of 2', "$kind: stderr lines posing as the runner's are logged as the script's, escaped");
}

# mod_cgid's scripts: in the domain its daemon entered before dropping
# root. Before, outside every domain, this probe read all of the worker's
# files and traced it.
{
    my $r = hget("/hostile/cgid/redteam.pl?$q");
    ok t_cmp($r->{code}, 200, 'mod_cgid: the probe runs');
    ok t_cmp(join(' | ', map { field($r, "victim_$_") } qw(proc ptrace)), qr/^none of \d+ \| 0 of 1$/,
             "mod_cgid's script: another pool's worker's /proc files and ptrace refused (its daemon's domain)");
    ok t_cmp(join(' | ', map { field($r, "runner_$_") } qw(proc ptrace)), qr/^none of \d+ \| 0 of \d+$/,
             "mod_cgid's script: the runner's refused");
}

# The control: a process of httpd's User outside any domain (the test's
# own) reads the worker's environment, its pool's CGIplusSetEnv value.
{
    pipe my $rd, my $wr or die;
    my $kid = fork // die;
    if (!$kid) {
        close $rd;
        $) = "$nobody $nobody";
        $( = $nobody;
        $< = $> = $nobody;
        my ($e, $buf);
        syswrite $wr, (open($e, '<', "/proc/$victim/environ") && sysread($e, $buf, 65536) ? $buf : "refused ($!)");
        POSIX::_exit(0);
    }
    close $wr;
    my $out = do { local $/; <$rd> } // '';
    waitpid $kid, 0;
    ok t_cmp($out =~ /SECRET_CONF=from-httpd/ ? 'read' : "not read: $out", 'read',
             'a process of that user outside any domain reads it (the domain is what stops them)');
    ok t_cmp(slurp($logf) =~ /CGIPLUS3790/ ? 'logged' : 'none', 'none',
             'every httpd process that dropped root entered its domain (no 3790)');
}

# ---- a private httpd with only mod_cgiplus: its own SSI exec element
my $dir = private_dir('redteam-ssi');
my $port = free_port();
my $docs = "$dir/docs";
mkdir $_ and chmod 0755, $_ for $docs, "$docs/a", "$docs/ssi";
{
    open my $fh, '>', "$docs/a/pid.pl" or die $!;
    print $fh "#!/usr/bin/perl\nuse lib '$vars->{top_dir}/lib/perl';\nuse CGIplus;\n"
            . "while (CGIplus::accept()) { print \"Content-Type: text/plain\\n\\npid=\$\$\\n\"; CGIplus::finish() }\n";
    close $fh;
    chmod 0755, "$docs/a/pid.pl";
    # every process of httpd's User: its environment's secret, if
    # readable, and how many gave it (a file: mod_include would take the
    # shell's $ for its own variables)
    open $fh, '>', "$docs/ssi/peek.sh" or die $!;
    print $fh <<'SH';
#!/bin/sh
n=0
for p in $(pgrep -u nobody); do
    if tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep '^POOL_SECRET='; then n=$((n+1)); fi
done
echo uid=$(id -u) leaked=$n
SH
    close $fh;
    chmod 0755, "$docs/ssi/peek.sh";
    open $fh, '>', "$docs/ssi/peek.shtml" or die $!;
    print $fh qq{<pre><!--#exec cmd="$docs/ssi/peek.sh" --></pre>\n};
    close $fh;
}
open my $cf, '>', "$dir/httpd.conf" or die $!;
print $cf private_conf($dir, $port, ['alias', 'mime', 'include'], <<"CONF");
TypesConfig /dev/null
DocumentRoot $docs
<Directory $docs>
    Require all granted
    Options +Includes +ExecCGI
    AddType text/html .shtml
    AddOutputFilter INCLUDES .shtml
    AddHandler cgiplus-script .pl
</Directory>
<Location /a/>
    CGIplusSetEnv POOL_SECRET pool-a-password
</Location>
CONF
close $cf;
ok t_cmp(private_start("$dir/httpd.conf", $port), 1, 'only mod_cgiplus: httpd starts');
my $hp = "127.0.0.1:$port";
my $w = raw_request($hp, GET => '/a/pid.pl');
ok t_cmp("$w->{code} " . ($w->{body} =~ /pid=(\d+)/ ? 'pid' : ''), '200 pid', 'a pool with a CGIplusSetEnv secret runs');
my $s = raw_request($hp, GET => '/ssi/peek.shtml');
ok t_cmp($s->{body}, qr/uid=$nobody leaked=0\b/,
         "SSI #exec cmd (httpd's User) opens no worker's environment");
ok t_cmp($s->{body} =~ /pool-a-password/ ? 'leaked' : 'kept', 'kept', 'nor reads the pool\'s secret');
ok t_cmp(raw_request($hp, GET => '/cgiplus-status')->{code}, 404,
         'the status page is not served where no scope sets its handler');
private_stop("$dir/httpd.pid");
ok t_cmp(slurp("$dir/error_log") =~ /CGIPLUS3790/ ? 'logged' : 'none', 'none', 'no 3790 there either');

# ---- the same httpd where the domain cannot be made: strace (detached,
# following forks and execs: a sanitizer run's httpd is a wrapper that
# execs it) refuses every landlock_restrict_self, httpd's and the
# runner's (whose pool says so, 3660, and serves on). Each child says so
# (3790) and serves on, and what 3790 warns of is what happens: SSI's
# #exec cmd reads the worker's environment again (a worker's own domain
# stops only tracers inside a domain: the child's is what kept it out).
SKIP: {
    skip 'needs strace', 4 if system('command -v strace >/dev/null 2>&1');
    rename "$dir/error_log", "$dir/error_log.1";
    ok t_cmp(private_start("$dir/httpd.conf", $port,
                           ['strace', '-D', '-f', '-o', '/dev/null',
                            '-e', 'trace=landlock_restrict_self',
                            '-e', 'inject=landlock_restrict_self:error=EPERM']), 1,
             'httpd starts with landlock_restrict_self refused to its processes');
    $w = raw_request($hp, GET => '/a/pid.pl');
    ok t_cmp("$w->{code} " . ($w->{body} =~ /pid=(\d+)/ ? 'pid' : ''), '200 pid',
             'the pool is served all the same');
    $s = raw_request($hp, GET => '/ssi/peek.shtml');
    ok t_cmp($s->{body}, qr/uid=$nobody leaked=[1-9].*pool-a-password|pool-a-password.*uid=$nobody leaked=[1-9]/s,
             "without its domain SSI #exec cmd reads the worker's environment, as 3790 warns");
    private_stop("$dir/httpd.pid");
    ok t_cmp(slurp("$dir/error_log"),
             qr/\(1\)Operation not permitted: CGIPLUS3790: this process of httpd \(pid \d+\) could not enter a Landlock domain of its own: .*can read the memory and environment of the runner's workers/,
             'a child that could not enter its domain says so (3790), with the errno');
}

# ---- a WebSocket worker (a pool of its own: runner_ws_worker.c), in a
# private httpd; the victim is another WebSocket pool's worker (pid.py)
SKIP: {
    skip 'needs python3-websockets (Debian package)', 7
        if system("$WsTest::PYTHON -c 'import websockets' 2>/dev/null");
    my ($wport, undef, $wdir) = ws_start(name => 'redteam');
    my $pid = ws_py(<<'PY', $wport);
import sys
async def main():
    ws = await connect("ws://127.0.0.1:%s/t/pid.py" % sys.argv[1])
    await ws.send("x")
    pid = int((await asyncio.wait_for(ws.recv(), 10)).split()[1])
    await ws.close()
    done({"pid": pid})
asyncio.run(main())
PY
    my $wv = $pid ? $pid->{pid} : 0;
    my $whttpd = slurp("$wdir/httpd.pid") =~ /(\d+)/ ? $1 : 0;
    my @wch = grep { ((stat "/proc/$_")[4] // -1) == $nobody } map { /(\d+)/ } `pgrep -P $whttpd`;
    my $wrunner = runner_pid($wdir);
    ok t_cmp($wv && @wch && $wrunner ? 1 : 0, 1,
             "WebSocket: another pool's worker ($wv), httpd's children (@wch), the runner ($wrunner)");
    my $wq = "victim=$wv&children=" . join(',', @wch) . "&runner=$wrunner&rundir=$wdir&tag=ws";
    my $rep = ws_py(<<'PY', $wport, $wq);
import sys
async def main():
    ws = await connect("ws://127.0.0.1:%s/t/redteam.pl" % sys.argv[1])
    await ws.send("probe " + sys.argv[2])
    body = await asyncio.wait_for(ws.recv(), 30)
    await ws.close()
    done({"body": body})
asyncio.run(main())
PY
    my $r = { body => $rep ? $rep->{body} : '' };
    ok t_cmp(join(' | ', map { field($r, "runner_$_") } qw(proc ptrace tgkill)),
             qr/^none of \d+ \| 0 of (\d+) \| 0 of \1$/,
             "WebSocket: the runner's /proc files, ptrace and signals to each of its threads: refused");
    my $sig = $sig_none ? '0' : '\d+';
    ok t_cmp(scalar(grep { my $i = $_; join(' | ', map { field($r, "child${i}_$_") } qw(proc ptrace tgkill))
                           =~ /^none of \d+ \| 0 of (\d+) \| $sig of \1$/ } 0 .. $#wch),
             scalar(@wch), "WebSocket: every httpd child's /proc files, ptrace of its threads: refused");
    ok t_cmp(join(' | ', map { field($r, "victim_$_") } qw(proc ptrace tgkill)),
             qr/^none of \d+ \| 0 of 1 \| \Q${\($sig_none ? 0 : 1)}\E of 1$/,
             "WebSocket: another pool's worker: /proc files and ptrace refused" . ($sig_none ? ', signals too' : ''));
    ok t_cmp(join(' ', map { field($r, $_) } qw(conf spool_list respool_list spool_create pidfile_write sock_chmod devtty)),
             join(' ', ('refused (Permission denied)') x 5, 'refused (Operation not permitted)',
                  'error (No such device or address)'),
             'WebSocket: the runtime directory\'s files and a terminal: refused');
    ok t_cmp(field($r, 'own_fds'), qr/^0:\S+ 1:\S+ 2:pipe 3:socket$/,
             'WebSocket: only its own descriptors (3: its channel)');
    # The runner reads the worker's stderr when it gets to it, which may be
    # after it relayed the answer the probe wrote later: wait for both.
    my $forged = sub { grep { /forged-ws line/ } split /\n/, slurp("$wdir/error_log") };
    wait_for(sub { $forged->() >= 2 }, 10);
    ws_stop('redteam');
    my @forged = $forged->();
    ok t_cmp(scalar(grep { /^\[[^]]+\] \[cgiplus-runner:\w+\] \[pid $wrunner\] CGIPLUS2813: stderr from WebSocket worker pid \d+ of \S+redteam\.pl: (?:\\x0d)?\[/
                           && !/\x1b|\r/ } @forged) . ' of ' . scalar(@forged),
             '2 of 2', 'WebSocket: stderr lines posing as the runner\'s are logged as the script\'s, escaped');
}
