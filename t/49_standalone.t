# The runner on its own, from its configuration file (docs/RUNNER.md): pools
# declared there start warm, module requests without settings meet them,
# the global worker cap is kept by stopping idle workers of other pools,
# SIGHUP reads the file again (a bad file is refused and the old settings
# stay), an unsafe file is refused at start, a runner running as root
# with no user to switch to refuses to run scripts (and WebSocket
# workers), a [pool] section it cannot set up is said, and the last
# descriptors are kept for connections that prove the key at once. A
# retired pool is freed (2070); a child the runner inherited from a wrapper
# that execs it is reaped (2047).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use IO::Select;
use IO::Socket::UNIX;
use Socket qw(SOCK_STREAM);
use POSIX ();
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(wire_connect wire_request wire_frames wire_status wait_for wire_key_file);

plan tests => 35;

my $vars = Apache::Test::config()->{vars};
my $bin = "$vars->{top_dir}/runner/cgiplus-runner";
my $dir = "$vars->{t_logs}/standalone";
my $script = "$vars->{documentroot}/pool/app.pl";
remove_tree($dir);
make_path($dir);
chmod 0755, $dir;

sub write_conf {
    my ($file, $text, $mode) = @_;
    open my $fh, '>', $file or die "$file: $!";
    print $fh $text;
    close $fh;
    chmod $mode // 0600, $file;
}

# (with => shell commands run first: a child they leave running is the
# runner's, as from a wrapper script that execs it)
sub start {
    my ($name, @args) = @_;
    my $with = $args[0] eq 'with' ? (splice @args, 0, 2)[1] : undef;
    my $pid = fork // die;
    if (!$pid) {
        open STDERR, '>>', "$dir/$name.log" or die;
        open STDOUT, '>', '/dev/null';
        exec 'sh', '-c', "$with exec \"\$0\" \"\$@\"", $bin, @args or POSIX::_exit(127) if $with;
        exec $bin, @args or POSIX::_exit(127);
    }
    return $pid;
}

sub log_of { open my $fh, '<', "$dir/$_[0].log" or return ''; local $/; return <$fh> }
sub pool { my ($st, $tag) = @_;
    my @p = grep { grep { $_ eq "POOL_$tag" } @{ $_->{settings}{env} } } @{ $st->{pools} };
    return $p[-1] }
sub req { my ($s, $id, $q, @begin) = @_;
    my $path = $begin[0] && $begin[0] eq 'script' ? (splice @begin, 0, 2)[1] : $script;
    wire_request($s, $id, [script => $path, uri => "/s?$q", @begin],
                 [QUERY_STRING => $q, CONTENT_LENGTH => 0, REQUEST_METHOD => 'GET']) }
sub out { join '', map { $_->{payload} } grep { $_->{type} == 6 } @_ }

my $key = wire_key_file();
my $conf = <<"CONF";
# the runner on its own
socket $dir/r.sock
key_file $key
user nobody
log_level debug
max_workers_total 3
kill_grace 500ms
[defaults]
max_workers 2
[pool $script]
min_idle 2
env POOL_declared=declared
CONF
write_conf("$dir/runner.conf", $conf);
# started from a wrapper that left a child of its own behind
my $runner = start('runner', with => "sleep 0.3 & echo \$! > $dir/left.pid;", '--config', "$dir/runner.conf");
ok t_cmp(wait_for(sub { -S "$dir/r.sock" }, 5) ? 1 : 0, 1, 'the runner listens on the socket its file names');

my $s = wire_connect("$dir/r.sock");
my $st = wait_for(sub { my $st = wire_status($s); my $p = pool($st, 'declared');
                        $p && (grep { $_->{state} eq 'idle' } @{ $p->{workers} }) == 2 ? $st : undef }, 5);
ok t_cmp($st ? 1 : 0, 1, 'the declared pool has two warm workers before any request');

# A request naming no settings meets the declared pool.
req($s, 1, 'x=1');
my @f = wire_frames($s, 100, 5);
ok t_cmp(out(@f), qr/pool=declared/, 'a request without settings is served by the declared pool');
$st = wire_status($s);
ok t_cmp(scalar(@{ $st->{pools} }), 1, 'no second pool was made');
my $bad;

# The global cap (3): another pool's two requests push out a declared worker.
# (Another script: requests for the declared one always meet its pool, t/50.)
my $s2 = wire_connect("$dir/r.sock");
my @other = (script => "$vars->{documentroot}/pool/other.pl", env => 'POOL_other=other', max_workers => 2);
req($s, 2, 'sleep=0.5', @other);
req($s2, 3, 'sleep=0.5', @other);
my $max = 0;
my $t0 = time;
while (time - $t0 < 0.4) {
    my $n = wire_status(wire_connect("$dir/r.sock"))->{runner}{workers};
    $max = $n if $n > $max;
    sleep 0.05;
}
my @a = wire_frames($s, 100, 5);
my @b = wire_frames($s2, 100, 5);
ok t_cmp("$a[-1]{outcome} $b[-1]{outcome}", '0 0', 'both requests of the other pool are served');
ok t_cmp($max <= 3 ? 1 : 0, 1, "never more than 3 workers ($max at most)");
$st = wire_status($s);
ok t_cmp(pool($st, 'declared')->{counters}{deaths}{evicted} >= 1 ? 1 : 0, 1,
         'an idle declared worker made room (evicted)');
ok t_cmp(log_of('runner'), qr{CGIPLUS2067: all 3 workers of the runner are taken; stopping idle worker pid \d+ of \Q$script\E for \S+/pool/other\.pl},
         '... logged (2067)');

# SIGHUP: new settings from the file.
(my $conf2 = $conf) =~ s/max_workers_total 3/max_workers_total 5/;
$conf2 =~ s/POOL_declared=declared/POOL_declared2=declared2/;
write_conf("$dir/runner.conf", $conf2);
kill 'HUP', $runner;
$st = wait_for(sub { my $st = wire_status($s); $st->{runner}{reloads} == 1 ? $st : undef }, 3);
ok t_cmp($st ? $st->{runner}{max_workers_total} : 0, 5, 'SIGHUP: the new global cap applies');
ok t_cmp(pool($st, 'declared2') && !pool($st, 'declared2')->{retired} ? 1 : 0, 1,
         'the changed pool section makes a new pool');
my $old = wait_for(sub { my $p = pool(wire_status($s), 'declared'); !$p || $p->{retired} }, 6, 0.2);
ok t_cmp($old ? 1 : 0, 1, 'and the old one retires once unused');
ok t_cmp(log_of('runner'), qr{CGIPLUS2064: pool #\d+ of \Q$script\E retired \(superseded by a newer configuration\)},
         '... logged (2064)');
ok t_cmp(wait_for(sub { log_of('runner') =~ m{CGIPLUS2070: pool #\d+ of \Q$script\E freed} }, 6, 0.2) ? 1 : 0, 1,
         'its workers gone, the retired pool is freed (2070, debug)');
# The wrapper's child, which the runner inherited, was reaped when it
# ended (no zombie), though no pool of the runner's knew it.
my $left = do { open my $lf, '<', "$dir/left.pid" or die "$dir/left.pid: $!"; <$lf> =~ /(\d+)/ ? $1 : 0 };
ok t_cmp(log_of('runner'), qr/CGIPLUS2047: reaped unknown child $left\b/, 'an inherited child is reaped, logged (2047, debug)');

# A log_level the runner does not know on SIGHUP: said (2401), the level
# in force stays, the rest of the file applies.
write_conf("$dir/runner.conf", "log_level loud\n" . ($conf2 =~ s/max_workers_total 5/max_workers_total 6/r =~ s/^log_level debug\n//mr));
kill 'HUP', $runner;
ok t_cmp(wait_for(sub { log_of('runner') =~ /CGIPLUS2401: SIGHUP: log_level loud is not error, warn, info or debug; keeping \w+/ }, 3)
         ? 1 : 0, 1, 'SIGHUP: an unknown log_level is said (2401)');
ok t_cmp(wait_for(sub { wire_status($s)->{runner}{max_workers_total} == 6 ? 1 : undef }, 3) // 0, 1,
         'and the rest of the file applies');

# A bad file on SIGHUP: refused, the settings in force stay.
write_conf("$dir/runner.conf", "bogus_setting 1\n");
kill 'HUP', $runner;
ok t_cmp(wait_for(sub { log_of('runner') =~ /CGIPLUS2078: SIGHUP: \S+: line 1: bogus_setting: unknown global setting/ }, 3)
         ? 1 : 0, 1, 'a bad file is refused with its line (2078)');
ok t_cmp(wire_status($s)->{runner}{max_workers_total}, 6, 'the settings in force stay');
close $s2;

# SIGTERM with a request still running: its worker gets 5 s, then SIGTERM
# (2049), and the request ends crashed (502), not cut without an END.
req($s, 300, 'sleep=30');
wire_frames($s, 1, 5, until => sub { $_[0]{type} == 14 });   # STARTED: on a worker
my $t_term = time;
kill 'TERM', $runner;
my @fin = wire_frames($s, 1000, 15);
my $took_term = time - $t_term;
ok t_cmp(@fin && $fin[-1]{type} == 8 ? $fin[-1]{outcome} : 'no END', 3,
         'SIGTERM: a request still running ends crashed (502)');
ok t_cmp($took_term > 4 && $took_term < 10 ? 1 : $took_term, 1, sprintf('after the 5 s its worker gets (%.1f s)', $took_term));
ok t_cmp(log_of('runner'), qr/CGIPLUS2048: stopping: 1 busy worker gets 5 s to finish.*CGIPLUS2049: 1 worker still busy; terminating it/s,
         'and the runner says so (2048, 2049)');
close $s;

waitpid $runner, 0;
ok t_cmp($?, 0, 'SIGTERM: the runner stops cleanly');
ok t_cmp(log_of('runner'), qr/CGIPLUS2057: stopped/, 'and says so');

# No key, or a key others may read: refused at start (docs/RUNNER.md).
write_conf("$dir/nokey.conf", "socket $dir/n.sock\n");
$bad = start('nokey', '--config', "$dir/nokey.conf");
waitpid $bad, 0;
ok t_cmp(($? >> 8) . ' ' . (log_of('nokey') =~ /no connection key: .*key_file/ ? 1 : 0),
         '2 1', 'a runner with no key (no --key-fd, no key_file) refuses to start');
open my $kin, '<', $key or die;
write_conf("$dir/open.key", scalar(<$kin>), 0640);
write_conf("$dir/openkey.conf", "socket $dir/n.sock\nkey_file $dir/open.key\n");
$bad = start('openkey', '--config', "$dir/openkey.conf");
waitpid $bad, 0;
ok t_cmp(($? >> 8) . ' ' . (log_of('openkey') =~ /key_file \S+ must be a regular file .* nobody else may read/ ? 1 : 0),
         '2 1', 'a key file its group may read is refused');
write_conf("$dir/short.key", "abcd\n");
write_conf("$dir/shortkey.conf", "socket $dir/n.sock\nkey_file $dir/short.key\n");
$bad = start('shortkey', '--config', "$dir/shortkey.conf");
waitpid $bad, 0;
ok t_cmp(($? >> 8) . ' ' . (log_of('shortkey') =~ /must hold exactly 64 hex digits/ ? 1 : 0),
         '2 1', 'a key file that is not 64 hex digits is refused');

# A configuration file others may write is refused at start.
write_conf("$dir/open.conf", "socket $dir/o.sock\n", 0666);
$bad = start('open', '--config', "$dir/open.conf");
waitpid $bad, 0;
ok t_cmp(($? >> 8) . ' ' . (log_of('open') =~ /must belong to root or to the runner's user and not be writable/ ? 1 : 0),
         '2 1', 'a group- or world-writable file is refused');

# Root with no user to switch to: scripts are refused (never run as root).
write_conf("$dir/root.conf", "socket $dir/root.sock\nkey_file $key\n");
my $rootr = start('root', '--config', "$dir/root.conf");
wait_for(sub { -S "$dir/root.sock" }, 5);
$s = wire_connect("$dir/root.sock");
req($s, 1, 'x=1');
@f = wire_frames($s, 100, 5);
ok t_cmp(@f ? "$f[-1]{outcome} $f[-1]{detail}" : '', '4 1',
         'a root runner without --user answers spawn-failed (EPERM)');
ok t_cmp(log_of('root'), qr/CGIPLUS2010: refusing to run \S+app\.pl as root/, 'and logs why (2010)');
close $s;
# the same for a WebSocket upgrade
$s = wire_connect("$dir/root.sock");
wire_request($s, 2, [script => "$vars->{documentroot}/ws/pid.py", uri => '/ws', mode => 'websocket'],
             [REMOTE_ADDR => '127.0.0.1', REQUEST_METHOD => 'GET', CONTENT_LENGTH => 0]);
@f = wire_frames($s, 100, 15);
ok t_cmp(@f ? "$f[-1]{outcome} $f[-1]{detail}" : '', '4 1',
         'a WebSocket upgrade to a root runner without --user: spawn-failed (EPERM) at once, as a request');
ok t_cmp(log_of('root'), qr/CGIPLUS2806: refusing to run \S+\/ws\/pid\.py as root: start cgiplus-runner with --user/,
         'and logs why (2806)');
close $s;
kill 'TERM', $rootr;
waitpid $rootr, 0;

# A [pool] section the runner cannot set up (a user it may not run
# scripts as): said at start (2069), the rest of the file applies.
# Descriptors: with 64 (prlimit), the last 32 are kept for connections
# that prove the key at once; one that sends nothing there is closed at
# once (2100), one with its HELLO is served.
write_conf("$dir/lim.conf", <<"CONF");
socket $dir/lim.sock
key_file $key
user nobody
[pool $vars->{documentroot}/pool/other.pl]
user daemon
CONF
my $limr = fork // die;
# however the test ends, this runner stops
END { kill 'TERM', $limr if $limr && kill 0, $limr }
if (!$limr) {
    open STDERR, '>>', "$dir/lim.log" or die;
    open STDOUT, '>', '/dev/null';
    exec 'prlimit', '--nofile=64:64', $bin, '--config', "$dir/lim.conf" or POSIX::_exit(127);
}
wait_for(sub { -S "$dir/lim.sock" }, 5);
# (its pools are set up after it listens)
wait_for(sub { log_of('lim') =~ /CGIPLUS2069/ }, 5);
ok t_cmp(log_of('lim'), qr/CGIPLUS2069: cannot set up the pool of \S+\/pool\/other\.pl: /,
         'a [pool] section with a user not allowed: said (2069)');
# fill descriptors 0 to 31 with connections that prove the key
my @held;
sub low_fds { opendir my $d, "/proc/$limr/fd" or return 99; return scalar grep { /^\d+$/ && $_ < 32 } readdir $d }
push @held, wire_connect("$dir/lim.sock") while low_fds() < 32 && @held < 40;
my $mute = IO::Socket::UNIX->new(Peer => "$dir/lim.sock", Type => SOCK_STREAM) or die "lim.sock: $!";
my $gone = IO::Select->new($mute)->can_read(5) && !sysread($mute, my $buf, 1);
ok t_cmp($gone ? 1 : 0, 1, 'a connection without HELLO in the last 32 of 64 descriptors: closed at once');
ok t_cmp(wait_for(sub { log_of('lim') =~ /CGIPLUS2100: refused a connection from pid $$ before its HELLO: descriptor \d+ is among the last 32 of 64/ }, 5) ? 1 : 0, 1,
         '... said (2100)');
# (its HELLO may come a moment after the accept, more often on a busy
# machine: the module tries again then, for seconds, as here)
my $served;
{
    local $SIG{PIPE} = 'IGNORE';
    for (1 .. 60) {
        last if $served = eval { wire_status(wire_connect("$dir/lim.sock"))->{runner}{pid} };
        sleep 0.05;
    }
}
ok t_cmp($served // 0, $limr, 'one that proves the key there is served');
close $_ for @held, $mute;
kill 'TERM', $limr;
waitpid $limr, 0;
