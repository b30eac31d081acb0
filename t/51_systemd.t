# The runner under a service manager, without one (contrib/systemd/): it
# says READY=1 over $NOTIFY_SOCKET once its socket accepts connections,
# RELOADING=1 then READY=1 around a SIGHUP, STOPPING=1 at SIGTERM; and it
# serves on a socket handed over as descriptor 3 ($LISTEN_FDS, socket
# activation), which it leaves in place at exit. The shipped sample
# configuration names its key (key_file) and, with its paths moved here,
# starts a runner that serves; the unit carries its resource limits.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use IO::Select;
use IO::Socket::UNIX;
use POSIX ();
use Socket;
use lib 't/htdocs/pool/lib';
use PoolTest qw(wire_connect wire_request wire_frames wait_for wire_key wire_key_file wire_status);

plan tests => 29;

my $vars = Apache::Test::config()->{vars};
my $bin = "$vars->{top_dir}/runner/cgiplus-runner";
my $dir = "$vars->{t_logs}/systemd";
remove_tree($dir);
make_path($dir);
chmod 0755, $dir;

my $notify = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => "$dir/notify")
    or die "notify socket: $!";
sub notice {
    my $m = '';
    return '' unless IO::Select->new($notify)->can_read($_[0] // 5);
    return defined(recv($notify, $m, 4096, 0)) ? $m : '';
}
sub log_of { open my $fh, '<', "$dir/$_[0].log" or return ''; local $/; return <$fh> }

# A runner started on its own proves connections with key_file (docs/RUNNER.md).
open my $kc, '>', "$dir/key.conf" or die;
print $kc "key_file " . wire_key_file() . "\n";
close $kc;
chmod 0600, "$dir/key.conf";

# Starts the runner with NOTIFY_SOCKET; listen: a socket to hand over as fd 3.
sub start {
    my ($name, $listen, @args) = @_;
    my $pid = fork // die;
    if (!$pid) {
        open STDERR, '>>', "$dir/$name.log" or die;
        open STDOUT, '>', '/dev/null';
        $ENV{NOTIFY_SOCKET} = "$dir/notify";
        if ($listen) {
            POSIX::dup2(fileno($listen), 3) // POSIX::_exit(126);
            $ENV{LISTEN_PID} = $$;
            $ENV{LISTEN_FDS} = 1;
        }
        exec $bin, '--config', "$dir/key.conf", @args or POSIX::_exit(127);
    }
    return $pid;
}

# Readiness: READY=1 arrives, and at that moment the socket already takes
# connections (no retry).
my $runner = start('notify', undef, '--socket', "$dir/n.sock", '--user', 'nobody');
my $first = notice();
my $c = IO::Socket::UNIX->new(Peer => "$dir/n.sock", Type => SOCK_STREAM);
ok t_cmp($first, 'READY=1', 'READY=1 over NOTIFY_SOCKET');
ok t_cmp($c ? 1 : 0, 1, 'when it arrives, the socket accepts a connection at the first try');
ok t_cmp(log_of('notify') =~ /CGIPLUS2056: .*listening on \Q$dir\E\/n\.sock/ ? 1 : 0, 1,
         'the listening line came before');
close $c if $c;
kill 'HUP', $runner;
ok t_cmp(notice() . ' ' . notice(), 'RELOADING=1 READY=1', 'SIGHUP: RELOADING=1, then READY=1');
kill 'TERM', $runner;
ok t_cmp(notice(), 'STOPPING=1', 'SIGTERM: STOPPING=1');
waitpid $runner, 0;
ok t_cmp($?, 0, 'and it stops cleanly');

# Socket activation: the runner takes descriptor 3 and names it in its log.
unlink "$dir/act.sock";
my $listen = IO::Socket::UNIX->new(Type => SOCK_STREAM, Local => "$dir/act.sock", Listen => 16)
    or die "listen: $!";
$runner = start('act', $listen, '--user', 'nobody');
close $listen;
ok t_cmp(notice(), 'READY=1', 'socket activation: READY=1');
ok t_cmp(log_of('act'), qr/CGIPLUS2056: .*listening on \Q$dir\E\/act\.sock/,
         'it listens on the handed-over socket (no --socket needed)');
my $s = wire_connect("$dir/act.sock");
my $script = "$vars->{documentroot}/pool/app.pl";
wire_request($s, 1, [script => $script, uri => '/a'],
             [CONTENT_LENGTH => 0, REQUEST_METHOD => 'GET', QUERY_STRING => '']);
my @f = wire_frames($s, 100, 10);
ok t_cmp(@f ? $f[-1]{outcome} : -1, 0, 'and serves a request on it');
ok t_cmp(join('', map { $_->{payload} } grep { $_->{type} == 6 } @f), qr/pid=\d+ n=1/,
         'with the script\'s output');
close $s;
kill 'TERM', $runner;
ok t_cmp(notice(), 'STOPPING=1', 'SIGTERM: STOPPING=1');
waitpid $runner, 0;
ok t_cmp($?, 0, 'it stops cleanly');
ok t_cmp(-S "$dir/act.sock" ? 1 : 0, 1, 'and leaves the service manager\'s socket in place');

# contrib/systemd/runner.conf as shipped, only its paths moved here (the
# socket, the key file): docs/RUNNER.md's "Under systemd" path.
my $contrib = "$vars->{top_dir}/contrib/systemd";
open my $sf, '<', "$contrib/runner.conf" or die;
my $sample = do { local $/; <$sf> };
ok t_cmp($sample, qr{^key_file /etc/cgiplus/runner\.key$}m,
         'the sample runner.conf names the key (key_file /etc/cgiplus/runner.key)');
$sample =~ s{^socket /run/cgiplus/runner\.sock$}{socket $dir/sample.sock}m;
$sample =~ s{^key_file /etc/cgiplus/runner\.key$}{key_file ${\wire_key_file()}}m;
open my $so, '>', "$dir/sample.conf" or die;
print $so $sample;
close $so;
my $pid = fork // die;
if (!$pid) {
    open STDERR, '>>', "$dir/sample.log" or die;
    open STDOUT, '>', '/dev/null'; # not the test's TAP pipe
    exec $bin, '--config', "$dir/sample.conf" or POSIX::_exit(127);
}
# However the test ends, this runner stops.
END { kill 'TERM', $pid if $pid && kill 0, $pid }
ok t_cmp(wait_for(sub { log_of('sample') =~ /CGIPLUS2056: .*listening on \Q$dir\E\/sample\.sock/ }, 10) ? 1 : 0,
         1, 'it starts and listens');
$s = wire_connect("$dir/sample.sock");
wire_request($s, 1, [script => $script, uri => '/a'],
             [CONTENT_LENGTH => 0, REQUEST_METHOD => 'GET', QUERY_STRING => '']);
@f = wire_frames($s, 100, 10);
ok t_cmp(join('', map { $_->{payload} } grep { $_->{type} == 6 } @f), qr/pid=\d+ n=1/,
         'and serves a request from a connection that proves the key');
close $s;
# Its pools get the shipped default size (README: 4 a CPU, 8 to 64), and
# its start-up line (2056) says the size they get.
my $st = wire_status(wire_connect("$dir/sample.sock"));
my ($p) = grep { $_->{script} eq $script } @{ $st->{pools} // [] };
my $mw = $p ? $p->{settings}{max_workers} : 0;
ok t_cmp($mw >= 8 ? 1 : 0, 1, "the sample's pools get the default size, at least 8 ($mw)");
ok t_cmp(log_of('sample'), qr/CGIPLUS2056: [^\n]*, $mw a pool unless set/,
         'and its start-up line says that size');
kill 'TERM', $pid;
waitpid $pid, 0;
ok t_cmp($?, 0, 'and stops cleanly');

# A socket unit that hands over the wrong thing: the runner refuses to
# start, saying why (2403, 2404), rather than serve on something else.
sub refused {
    my ($name, $fds, $fd3) = @_;
    my $p = fork // die;
    if (!$p) {
        open STDERR, '>>', "$dir/$name.log" or die;
        open STDOUT, '>', '/dev/null';
        POSIX::dup2(fileno($fd3), 3) // POSIX::_exit(126);
        $ENV{LISTEN_PID} = $$;
        $ENV{LISTEN_FDS} = $fds;
        exec $bin, '--config', "$dir/key.conf", '--user', 'nobody' or POSIX::_exit(127);
    }
    waitpid $p, 0;
    return $? >> 8;
}
unlink "$dir/two.sock";
my $l2 = IO::Socket::UNIX->new(Type => SOCK_STREAM, Local => "$dir/two.sock", Listen => 4)
    or die "listen: $!";
ok t_cmp(refused('fds2', 2, $l2), 1, 'LISTEN_FDS=2: the runner does not start (status 1)');
ok t_cmp(log_of('fds2'), qr/CGIPLUS2403: socket activation: LISTEN_FDS=2; the runner takes exactly one socket/,
         'saying it takes exactly one socket');
open my $plain, '<', "$dir/key.conf" or die;
ok t_cmp(refused('notsock', 1, $plain), 1, 'descriptor 3 a file: the runner does not start (status 1)');
ok t_cmp(log_of('notsock'), qr/CGIPLUS2404: socket activation: descriptor 3 is not a listening UNIX stream socket/,
         'saying descriptor 3 is not a listening UNIX stream socket');
close $plain;
close $l2;

# Started as httpd starts it (the key on a descriptor, no configuration
# file), with nobody listening at NOTIFY_SOCKET: it says it cannot notify
# (2402) and serves all the same; SIGHUP has no file to read again (2095).
unlink "$dir/k.sock";
pipe my $kr, my $kw or die "pipe: $!";
my $kpid = fork // die;
if (!$kpid) {
    close $kw;
    open STDERR, '>>', "$dir/keyfd.log" or die;
    open STDOUT, '>', '/dev/null';
    POSIX::dup2(fileno($kr), 5) // POSIX::_exit(126);
    $ENV{NOTIFY_SOCKET} = "$dir/nobody-listens";
    exec $bin, '--key-fd', 5, '--socket', "$dir/k.sock", '--user', 'nobody' or POSIX::_exit(127);
}
close $kr;
print $kw wire_key();
close $kw;
ok t_cmp(wait_for(sub { log_of('keyfd') =~ /CGIPLUS2402: cannot tell the service manager "READY=1" over NOTIFY_SOCKET: No such file or directory/ }, 10) ? 1 : 0,
         1, 'NOTIFY_SOCKET with nobody listening: said (2402)');
ok t_cmp(wire_status(wire_connect("$dir/k.sock"))->{runner}{pid}, $kpid, '... and the runner serves');
kill 'HUP', $kpid;
ok t_cmp(wait_for(sub { log_of('keyfd') =~ /CGIPLUS2095: SIGHUP: no configuration file to read again \(start with --config\)/ }, 10) ? 1 : 0,
         1, 'SIGHUP without --config: nothing to read again (2095)');
ok t_cmp(wire_status(wire_connect("$dir/k.sock"))->{runner}{pid}, $kpid, '... and it goes on');
kill 'TERM', $kpid;
waitpid $kpid, 0;
ok t_cmp($?, 0, 'it stops cleanly');

open my $uf, '<', "$contrib/cgiplus-runner.service" or die;
my $unit = do { local $/; <$uf> };
ok t_cmp(join(' ', map { $unit =~ /^($_=\S+)$/m ? $1 : "no $_" } qw(MemoryMax TasksMax OOMPolicy)),
         'MemoryMax=50% TasksMax=2048 OOMPolicy=continue',
         'the unit bounds memory and tasks, and survives a worker killed for memory');
