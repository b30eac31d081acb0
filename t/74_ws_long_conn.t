# A WebSocket connection that outlives pool_idle (no other upgrade to its
# pool meanwhile, as a chat client's long session) must not make the runner
# spin: the pool cannot retire while the connection is open, so the pool's
# idle deadline, once past, must not keep waking the loop (before: every
# turn of the loop ran the pool's timer again, the runner at 100% CPU for
# as long as the connection lasted). A runner on its own (pool_idle is a
# runner-wide key) with pool_idle 1s, behind a private httpd.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use Time::HiRes qw(sleep time);
use lib 't/lib', 't/htdocs/pool/lib';
use FreePort qw(free_port);
use PoolTest qw(wait_for wire_key_file standalone_runner);
use PrivHttpd qw(httpd_start);

my $PYTHON = '/usr/bin/python3';
plan tests => 4, need { 'python3-websockets' =>
                        !system("$PYTHON -c 'import websockets' 2>/dev/null") };

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $dir = "$vars->{t_logs}/ws-longconn";
my $port = free_port();
remove_tree($dir);
make_path($dir);
chmod 0755, $dir;

my $runner = standalone_runner($dir, 'runner', <<"CONF");
socket $dir/r.sock
user $vars->{user}
pool_idle 1s
CONF
ok t_cmp(wait_for(sub { -S "$dir/r.sock" }, 5) ? 1 : 0, 1, 'the runner listens');

httpd_start('ws-longconn-httpd', $port, <<"CONF");
CGIplusRunnerSocket $dir/r.sock
CGIplusRunnerKeyFile @{[wire_key_file()]}
Alias /c/ $top/examples/c/
<Directory $top/examples/c>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
CONF

# the runner's CPU time (user + system), in clock ticks
sub cpu_ticks {
    open my $fh, '<', "/proc/$runner/stat" or return -1;
    my $st = <$fh>;
    $st =~ s/^.*\)\s+//;
    my @f = split ' ', $st;
    return $f[11] + $f[12];
}

# One connection held 5 s: an echo at its start and at its end.
pipe my $rd, my $wr or die "pipe: $!";
my $kid = fork // die "fork: $!";
if (!$kid) {
    close $rd;
    open STDOUT, '>&', $wr;
    exec $PYTHON, '-c', <<'PY', $port;
import asyncio, sys, websockets
async def main(port):
    async with websockets.connect("ws://127.0.0.1:%s/c/ws_echo" % port) as c:
        await c.send("a"); a = await c.recv()
        await asyncio.sleep(5)
        await c.send("b"); b = await c.recv()
    print(a + b)
asyncio.run(main(sys.argv[1]))
PY
    exit 127;
}
close $wr;
sleep 2.5; # past pool_idle, the connection open
my $t0 = cpu_ticks();
sleep 2;
my $used = cpu_ticks() - $t0;
my $out = <$rd> // '';
waitpid $kid, 0;
chomp $out;
ok t_cmp($out, 'ab', 'the long connection echoed at its start and at its end');
ok t_cmp($t0 >= 0 ? 1 : 0, 1, "the runner's CPU time is readable");
# idle, it sleeps in epoll_wait: a few ticks at most; spinning, about 200
ok t_cmp($used < 30 ? 1 : 0, 1, "the runner stays idle while the connection is quiet (used $used ticks in 2 s)");
