# Security: what a hostile script reaches of a FastCGI worker of another
# pool that connects per request (CGIplusFastCGIConnection per-request).
# Its listening socket is mode 0666, in the runner's spool directory (0700,
# root's); httpd's children hold O_PATH descriptors of its name and connect
# through /proc/self/fd/N; the runner keeps a copy of the socket. From
# every worker kind that runs Perl (a CGIplus worker, plain CGI under
# CGIplusCompat, the Perl engine, a FastCGI worker keeping its connection
# and one connecting per request), each a pool of its own and all of
# httpd's User: the socket's name is listed in /proc/net/unix but not
# connectable (EACCES); the worker's descriptors (/proc/PID/fd, a connect
# through /proc/PID/fd/N, pidfd_getfd) and memory (process_vm_readv) are
# closed by its Landlock domain; httpd's children (the O_PATH descriptors)
# by not being dumpable; the runner (its copy) by being root's. A plain CGI
# script run by mod_cgid is in its daemon's domain (cgiplus_domain.c) and
# reaches none of them. A process of that user outside every domain (the
# control, started by the test) reaches the worker (and could accept() its
# requests on the taken socket) but neither the children nor the runner,
# nor the socket by name: pools that must not be reached by such processes
# need a CGIplusUser (docs/RELIABILITY.md).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget hstart hfinish runner_pid kept_get);
use PrivHttpd qw(httpd_start ASAN_MEASURE);
use lib 't/lib';
use FreePort qw(free_port);
use IO::Socket::INET;
use Time::HiRes qw(sleep);
use POSIX ();

my @kinds = (['plus', 'reach.pl'], ['compat', 'reach.pl'], ['eperl', 'reach.pl'],
             ['fcgi', 'reach_fcgi.pl'], ['fcgipr', 'reach_fcgi.pl']);
plan tests => 6 + 9 * @kinds + 7 + 3 + 3 * 4;

my $vars = Apache::Test::config()->{vars};
my $nobody = getpwnam('nobody');
sub field { my ($r, $k) = @_; return ($r->{body} =~ /^\Q$k\E=(.*)$/m)[0] // '' }
sub slurp { my ($f) = @_; open my $fh, '<', $f or return ''; local $/; return <$fh> // '' }
my $log = slurp("$vars->{t_logs}/error_log");
my $domains = $log =~ /CGIPLUS2913: each worker starts in a Landlock domain/ ? 1 : 0;

# The victim: a FastCGI worker connecting per request; several requests so
# that httpd's children learn its socket (the direct path).
my $hpid = slurp("$vars->{t_logs}/httpd.pid") =~ /(\d+)/ ? $1 : 0;
sub children { return grep { ((stat "/proc/$_")[4] // -1) == $nobody } map { /(\d+)/ } `pgrep -P $hpid` }
sub named {
    my $n = 0;
    for my $c (children()) {
        $n += grep { (readlink($_) // '') =~ m{/fcgi-\d+-\d+\.sock$} } glob("/proc/$c/fd/*");
    }
    return $n;
}
my ($v, $named) = (undef, 0);
for my $i (1 .. 60) {
    $v = hget('/hostile/victim/reach_fcgi.pl');
    last if $i >= 12 && ($named = named()) > 0;
}
my $victim = field($v, 'pid');
ok t_cmp("$v->{code} " . ($victim =~ /^\d+$/ ? 'pid' : $victim), '200 pid', 'the victim pool answers');
ok t_cmp(field($v, 'own_fds'), '0:socket 1:pipe 2:pipe 3:socket',
         'the victim has its listening socket, its log pipe and its request\'s connection, nothing else');
my @children = children();
my $runner = runner_pid() // 0;
ok t_cmp(scalar(@children) > 0 && $runner > 0 ? 1 : 0, 1, "httpd's children (@children) and the runner ($runner)");
# What is attacked is there: a child holds the socket's name (O_PATH),
# and the runner its copy of the socket.
ok t_cmp($named > 0 ? 1 : 0, 1, "httpd's children hold O_PATH descriptors of FastCGI sockets ($named)");
my $rsocks = grep { (readlink($_) // '') =~ /^socket:/ } glob("/proc/$runner/fd/*");
ok t_cmp($rsocks > 0 ? 1 : 0, 1, 'the runner holds sockets');
ok t_cmp($domains, 1, 'the runner starts each worker in a Landlock domain (2913)');

# What the probe says of each child still alive after it (the MPM may
# have ended one meanwhile): connect, getfd, mem.
sub alive_children {
    my ($r) = @_;
    return map { my $i = $_; join(' | ', map { field($r, "child${i}_$_") } qw(fds connect getfd mem)) }
           grep { -e "/proc/$children[$_]" } 0 .. $#children;
}
my $q = "victim=$victim&children=" . join(',', @children) . "&runner=$runner";
my $refused_ls = 'refused (Permission denied)';
my $refused_op = 'refused (Operation not permitted)';
for my $k (@kinds) {
    my ($kind, $script) = @$k;
    my $r = hget("/hostile/$kind/$script?$q");
    ok t_cmp($r->{code}, 200, "$kind: the probe runs");
    ok t_cmp(field($r, 'sockets'), qr/^[1-9]\d* found: refused \(Permission denied\) x\d+$/,
             "$kind: FastCGI sockets by name (listed in /proc/net/unix): none connectable");
    ok t_cmp(field($r, 'spool'), qr/^(0700 uid=0|unstattable \(Permission denied\))$/,
             "$kind: their directory is root's, 0700");
    # its descriptors' numbers may be listed (the directory is its uid's),
    # not followed
    ok t_cmp(join(' | ', map { field($r, "victim_$_") } qw(connect getfd mem)),
             qr/^refused \(Permission denied\) x\d+ \| \Q$refused_op | $refused_op\E$/,
             "$kind: the victim worker's descriptors (connected through, taken) and memory: refused");
    my @ch = alive_children($r);
    ok t_cmp(scalar(grep { $_ eq "$refused_ls | $refused_ls x64 | $refused_op | $refused_op" } @ch),
             scalar(@ch) || -1, "$kind: every httpd child's descriptors (its O_PATH ones) and memory: refused");
    ok t_cmp(join(' | ', map { field($r, "runner_$_") } qw(fds connect getfd mem)),
             "$refused_ls | $refused_ls x64 | $refused_op | $refused_op",
             "$kind: the runner's (its copy of the socket): refused");
    my $own = field($r, 'own_fds');
    # (the Perl engine's own: the descriptors it keeps to put 1 and 2 back)
    ok t_cmp($own, $kind =~ /^fcgi/ ? '0:socket 1:pipe 2:pipe 3:socket'
                   : $kind eq 'compat' ? '0:pipe 1:pipe 2:pipe'
                   : $kind eq 'eperl' ? qr/^0:\S+ 1:pipe 2:pipe 3:pipe(?: \d+:(?:pipe|\/[^ ]*))*$/
                   : qr/^0:\S+ 1:pipe 2:pipe 3:pipe$/,
             "$kind: its own descriptors, nothing of another pool or of httpd");
    ok t_cmp(field($r, 'pid') ne $victim ? 1 : 0, 1, "$kind: not the victim");
    $v = hget('/hostile/victim/reach_fcgi.pl');
    ok t_cmp("$v->{code} " . field($v, 'pid'), "200 $victim", "$kind: the victim serves on, the same worker");
}

# mod_cgid's plain CGI, of the same user: its daemon entered a Landlock
# domain of its own before it dropped root (cgiplus_domain.c), so its
# scripts reach no worker; before, outside every domain, one took the
# victim's listening socket and read its memory. Not the children, the
# runner or the socket by name either.
my $r = hget("/hostile/cgid/reach.pl?$q");
ok t_cmp($r->{code}, 200, 'mod_cgid: the probe runs');
ok t_cmp(field($r, 'sockets'), qr/^[1-9]\d* found: refused \(Permission denied\) x\d+$/,
         'mod_cgid: FastCGI sockets by name: none connectable');
ok t_cmp(join(' | ', map { field($r, "victim_$_") } qw(connect getfd mem)),
         qr/^refused \(Permission denied\) x\d+ \| \Q$refused_op | $refused_op\E$/,
         'mod_cgid: in its daemon\'s domain, the victim worker\'s descriptors and memory: refused');
my @ch = alive_children($r);
ok t_cmp(scalar(grep { $_ eq "$refused_ls | $refused_ls x64 | $refused_op | $refused_op" } @ch),
         scalar(@ch) || -1, "mod_cgid: every httpd child's descriptors and memory: refused (not dumpable)");
ok t_cmp(join(' | ', map { field($r, "runner_$_") } qw(fds connect getfd mem)),
         "$refused_ls | $refused_ls x64 | $refused_op | $refused_op", "mod_cgid: the runner's: refused");
ok t_cmp(field($r, 'own_fds') =~ /(?:^|\s)(?:[3-9]|\d\d+):(?:socket|\/\S*fcgi-)/ ? 'leaked' : 'none',
         'none', 'mod_cgid: no socket of the runner or of httpd\'s children among its descriptors');
$v = hget('/hostile/victim/reach_fcgi.pl');
ok t_cmp("$v->{code} " . field($v, 'pid'), "200 $victim", 'the victim serves on, the same worker');

# The control that the probes have teeth: the same probe in a process of
# httpd's User outside every domain (a cron job of that user, say; none
# that httpd starts). It takes the victim's listening socket and reads its
# memory: pools that must be kept from such processes need a CGIplusUser.
{
    pipe my $rd, my $wr or die;
    my $kid = fork // die;
    if (!$kid) {
        close $rd;
        my $gid = (getpwnam('nobody'))[3];
        $) = "$gid $gid";
        $( = $gid;
        $< = $> = $nobody;
        do "$vars->{documentroot}/hostile/reach_lib.pl" or do { syswrite $wr, "failed: $@ $!\n"; POSIX::_exit(1) };
        syswrite $wr, reach_report($q);
        POSIX::_exit(0);
    }
    close $wr;
    my $body = do { local $/; <$rd> } // '';
    waitpid $kid, 0;
    my $c = { body => $body };
    ok t_cmp(field($c, 'victim_getfd'), qr/\btook socket\b/,
             'a process of that user outside any domain takes the victim worker\'s sockets (hence CGIplusUser)');
    ok t_cmp(field($c, 'victim_mem'), 'read', 'and reads its memory');
    ok t_cmp(field($c, 'victim_connect'), qr/^(error \(Connection refused\)|refused \(Connection refused\))/,
             'a connect through /proc/PID/fd/0 of the listening socket itself is refused');
}

# A FastCGI application flooding whoever reads its connection within one
# request (t/htdocs/hostile/flood_fcgi.py): 4 MiB of STDERR records of
# 65535 bytes without a newline, 16 MiB of GET_VALUES_RESULT and
# UNKNOWN_TYPE records. An httpd child (direct, kept connection and per
# request) or the runner (relayed) logs the STDERR in lines of at most
# 4 KiB and keeps none of it: neither grows by more than 2 MB meanwhile
# (sampled every 20 ms), and the request is answered. In a private httpd
# whose runner and children run, under the sanitizers, without ASan's
# quarantine (PrivHttpd's ASAN_MEASURE), so RSS counts what they hold: in
# the suite's httpd freed buffers waited in it and the runner's RSS passed
# 2 MB now and then.
my $fport = free_port();
my $fdir = do {
    local $ENV{ASAN_OPTIONS} = ASAN_MEASURE;
    httpd_start('flood-fcgi', $fport, <<"CONF");
AliasMatch ^/hostile/(fcgi|fcgipr|fcgir)/(.*)\$ $vars->{documentroot}/hostile/\$2
<Directory $vars->{documentroot}/hostile>
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusMode fastcgi
    CGIplusMaxWorkers 1
</Directory>
<Location /hostile/fcgir/>
    CGIplusDirect off
</Location>
<Location /hostile/fcgipr/>
    CGIplusFastCGIConnection per-request
</Location>
CONF
};
my $fhpid = do {
    sleep 0.1 for grep { !-s "$fdir/httpd.pid" } 1 .. 100; # written just after it listens
    open my $f, '<', "$fdir/httpd.pid" or die "$fdir/httpd.pid: $!";
    (<$f> // '') =~ /(\d+)/ ? $1 : die "no pid in $fdir/httpd.pid";
};
sub fchildren { return map { /(\d+)/ } `pgrep -P $fhpid` }
sub rss { my ($p) = @_; open my $f, '<', "/proc/$p/status" or return 0;
          my ($k) = map { /^VmRSS:\s+(\d+)/ ? $1 : () } <$f>; return $k // 0 }
for my $pre (qw(fcgi fcgipr fcgir)) {
    # on the flood's own connection: the child that serves it has learnt
    # the pool and served it before the baseline (a first request's
    # growth, in a child that had served none, is not the flood's)
    my $fs = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$fport", Timeout => 5) or die "connect: $!";
    kept_get($fs, "/hostile/$pre/flood_fcgi.py") for 1 .. 3;
    my @ch = grep { ((stat "/proc/$_")[4] // -1) == $nobody } fchildren();
    my $rn = runner_pid($fdir) // 0;
    my %base = map { $_ => rss($_) } $rn, @ch;
    pipe my $rd, my $wr or die $!;
    my $sampler = fork // die $!;
    if (!$sampler) {
        close $rd;
        my %max;
        my $until = time + 120;
        while (!-e "$vars->{t_logs}/flood-stop-$$" && time < $until) {
            for my $p (keys %base) { my $k = rss($p); $max{$p} = $k if $k > ($max{$p} // 0) }
            sleep 0.02;
        }
        print $wr join(' ', map { "$_=" . ($max{$_} // 0) } keys %base), "\n";
        close $wr;
        POSIX::_exit(0);
    }
    close $wr;
    my $off = -s "$fdir/error_log";
    my $r = hget("/hostile/$pre/flood_fcgi.py?stderr=4&mgmt=16", sock => $fs, timeout => 120);
    open my $stop, '>', "$vars->{t_logs}/flood-stop-$sampler" or die $!;
    close $stop;
    my %max = map { split /=/ } split ' ', <$rd> // '';
    waitpid $sampler, 0;
    unlink "$vars->{t_logs}/flood-stop-$sampler";
    ok t_cmp("$r->{code} " . ($r->{body} =~ /^done \d+$/m ? 'done' : $r->{body}), '200 done',
             "$pre: the flooding request is answered");
    my $grew_runner = ($max{$rn} // 0) - $base{$rn};
    my ($grew_child) = sort { $b <=> $a } map { ($max{$_} // 0) - $base{$_} } @ch;
    ok t_cmp($grew_runner < 2048 ? 1 : "$grew_runner kB", 1, "$pre: the runner's RSS grew under 2 MB ($grew_runner kB)");
    ok t_cmp(($grew_child // 0) < 2048 ? 1 : "$grew_child kB", 1,
             "$pre: no httpd child's RSS grew by 2 MB (at most $grew_child kB)");
    open my $lf, '<', "$fdir/error_log" or die $!;
    seek $lf, $off, 0;
    my ($n, $long) = (0, 0);
    while (<$lf>) {
        next unless /x{1000}/;
        $n++;
        $long++ if /x{4097}/;
    }
    ok t_cmp("$n lines, $long over 4 KiB" =~ /^(\d+) lines, 0 over/ && $1 >= 1000 ? 'bounded' : "$n lines, $long over 4 KiB",
             'bounded', "$pre: the STDERR logged in lines of at most 4 KiB");
}
