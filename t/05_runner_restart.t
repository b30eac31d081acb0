# kill -9 of the runner: httpd's parent starts a new one and the next
# request succeeds.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);
use Time::HiRes qw(sleep time);

plan tests => 5;

my $vars = Apache::Test::config()->{vars};
my $pidfile = "$vars->{t_logs}/cgiplus-runner.pid";

my $r = GET '/c/hello';
ok t_cmp($r->code, 200, 'a request before the kill');

sub read_pid {
    open my $fh, '<', $pidfile or return 0;
    my $p = <$fh> // '';
    return $p =~ /^(\d+)/ ? $1 : 0;
}
my $old = read_pid();
ok $old > 1 && kill(0, $old);
kill 'KILL', $old;
# Dead, its sockets closed (a zombie until httpd reaps it): a request
# written while it is still dying may have reached it and is never sent
# again (t/51_no_rerun.t), which is not what this test is about.
my $until = time + 5;
sleep 0.01 while time < $until && (`cat /proc/$old/stat 2>/dev/null` =~ /^\d+ \(.*\) [^Z]/);

# The very next request must succeed: the module waits for the new runner.
$r = GET '/c/hello';
ok t_cmp($r->code, 200, 'the first request after kill -9 succeeds');
ok t_cmp($r->content, "Hello from CGIplus\n", 'and has the right body');

# httpd starts the new runner within a second or so; a request may not have
# needed it (an idle worker of the old one served it on the direct path).
my $new = 0;
for (1 .. 100) {
    $new = read_pid();
    last if $new > 1 && $new != $old && kill(0, $new);
    sleep 0.1;
}
ok $new > 1 && $new != $old && kill(0, $new);
