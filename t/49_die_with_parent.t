# --die-with-parent (docs/RUNNER.md), as httpd starts the runner, under a
# subreaper (a service manager's PR_SET_CHILD_SUBREAPER: this test): a
# runner whose parent exits gets SIGTERM and stops cleanly; one whose
# parent is gone before it set that up exits at once (2055), though its
# parent is then the subreaper, not pid 1; so does one whose parent died
# before it even looked (--parent-pid, which httpd passes: its own pid).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Fcntl qw(F_SETFD);
use File::Path qw(make_path remove_tree);
use POSIX ();
use lib 't/htdocs/pool/lib';
use PoolTest qw(wait_for);
require 'syscall.ph';

plan tests => 10;

my $vars = Apache::Test::config()->{vars};
my $bin = "$vars->{top_dir}/runner/cgiplus-runner";
my $dir = "$vars->{t_logs}/dieparent";
remove_tree($dir);
make_path($dir);
chmod 0755, $dir;

# This process takes the orphans of its descendants, as a service manager.
syscall(&SYS_prctl, 36, 1, 0, 0, 0) == 0 or die "prctl(PR_SET_CHILD_SUBREAPER): $!"; # 36: PR_SET_CHILD_SUBREAPER
sub log_of { open my $fh, '<', "$dir/$_[0].log" or return ''; local $/; return <$fh> }
# waits (10 s at most) for $pid, a child of ours; its wait status, or -1
sub reap {
    my ($pid) = @_;
    my $st = -1;
    wait_for(sub { waitpid($pid, POSIX::WNOHANG()) == $pid ? do { $st = $?; 1 } : 0 }, 10);
    return $st;
}
# A parent (forked here) that starts the runner on a key pipe and tells
# us its pid on $report; it then runs $then->($runner_pid) and exits.
sub parent_of_runner {
    my ($name, $then, @more) = @_;
    pipe my $kr, my $kw or die;
    pipe my $rr, my $rw or die;
    fcntl($kr, F_SETFD, 0) or die; # the runner inherits it
    my $parent = fork // die;
    if (!$parent) {
        close $rr;
        close $kw;
        my $r = fork // POSIX::_exit(1);
        if (!$r) {
            open STDERR, '>>', "$dir/$name.log" or POSIX::_exit(127);
            open STDOUT, '>', '/dev/null';
            exec $bin, '--socket', "$dir/$name.sock", '--die-with-parent', '--key-fd', fileno($kr),
                @more or POSIX::_exit(127);
        }
        syswrite $rw, "$r\n";
        close $rw;
        $then->($r);
        POSIX::_exit(0);
    }
    close $kr;
    close $rw;
    my $runner = <$rr> // die "no runner pid\n";
    chomp $runner;
    return ($parent, $runner, $kw);
}
sub give_key { my ($kw) = @_; syswrite $kw, join('', map { chr int rand 256 } 1 .. 32); close $kw }

# A runner whose parent exits after it started: SIGTERM, a clean stop.
my ($p1, $r1, $kw1) = parent_of_runner('later', sub { sleep 1000 });
give_key($kw1);
ok t_cmp(wait_for(sub { -S "$dir/later.sock" }, 10) ? 1 : 0, 1, 'the runner starts and listens');
kill 'KILL', $p1;
waitpid $p1, 0;
my $st = reap($r1);
ok t_cmp($st, 0, 'its parent gone, it exits 0 (SIGTERM: PR_SET_PDEATHSIG)');
ok t_cmp(log_of('later'), qr/CGIPLUS2057: stopped/, 'a clean stop (2057)');

# A runner whose parent exits while it reads its key, before it set up
# PR_SET_PDEATHSIG: it is ours then (the subreaper's), not pid 1's.
my ($p2, $r2, $kw2) = parent_of_runner('early', sub {
    my ($r) = @_;
    # (its read of the key pipe: the first field of /proc/PID/syscall)
    my $in_read = sub { open my $fh, '<', "/proc/$r/syscall" or return 0;
                        my $l = <$fh> // ''; return $l =~ /^(\d+) / && $1 == &SYS_read };
    wait_for($in_read, 10) or POSIX::_exit(2);
});
waitpid $p2, 0;
my $parent_st = $?;
give_key($kw2);
$st = reap($r2);
if ($st == -1) { kill 'TERM', $r2; waitpid $r2, 0 }
ok t_cmp("$parent_st $st", '0 0', 'its parent gone before it looked: it exits 0 at once');
ok t_cmp(log_of('early'), qr/CGIPLUS2055: parent already gone; exiting/, '... and says so (2055)');

# A runner told its parent's pid (--parent-pid), whose parent by then is
# another (here: the parent it names is gone, reaped, before the runner
# starts): it exits at once, as if it had seen its parent die.
my $gone = fork // die;
POSIX::_exit(0) if !$gone;
waitpid $gone, 0;
# (the parent reaps it and exits with what it saw: 9 for none in 10 s)
my ($p3, $r3, $kw3) = parent_of_runner('named', sub {
    my ($r) = @_;
    local $SIG{ALRM} = sub { kill 'TERM', $r; waitpid $r, 0; POSIX::_exit(9) };
    alarm 10;
    waitpid $r, 0;
    POSIX::_exit($? & 127 ? 8 : $? >> 8);
}, '--parent-pid', $gone);
give_key($kw3);
$st = reap($p3);
ok t_cmp($st >> 8, 0, '--parent-pid naming a process that is not its parent: it exits 0 at once');
ok t_cmp(log_of('named'), qr/CGIPLUS2055: parent already gone; exiting/, '... and says so (2055)');

my $out = `$bin --parent-pid 1 --socket $dir/bad.sock 2>&1`;
ok t_cmp($? >> 8, 2, '--parent-pid 1 is refused (exit 2)');
ok t_cmp($out, qr/--parent-pid wants a process id above 1/, '... with a sentence saying why');

# httpd names itself: the runner it started has --parent-pid <httpd's pid>.
my $hpid = do { open my $fh, '<', "$vars->{t_logs}/httpd.pid" or die "httpd.pid: $!"; local $/; <$fh> };
$hpid =~ s/\s+//g;
my $rpid = PoolTest::runner_pid();
my $cmd = do { open my $fh, '<', "/proc/$rpid/cmdline" or die "cmdline of $rpid: $!"; local $/; <$fh> } // '';
my @argv = split /\0/, $cmd;
my ($named) = map { $argv[$_ + 1] } grep { $argv[$_] eq '--parent-pid' } 0 .. $#argv;
ok t_cmp($named // 'none', $hpid, "httpd's runner is told httpd's pid");
