# CoreDumpDirectory makes httpd's children dumpable again, which lets a
# script of httpd's user read the runner's key from their memory (where
# Landlock does not stop it): mod_cgiplus says so (1202) once at start and
# once at each restart, not once per child (an admin saw 96 lines in an
# afternoon of restarts), and the children are dumpable as httpd wants.
use strict;
use warnings FATAL => 'all';
use lib 't/lib';
use FreePort qw(free_port);
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use Time::HiRes qw(sleep);
use lib 't/htdocs/pool/lib';
use PrivHttpd qw(httpd_start httpd_graceful httpd_log);

plan tests => 3;

my $port = free_port();
my $dir = httpd_start('coredump-warn', $port, <<"CONF");
<IfModule mpm_event_module>
    StartServers 4
    ServerLimit 4
    ThreadsPerChild 4
    MinSpareThreads 16
    MaxSpareThreads 16
    MaxRequestWorkers 16
</IfModule>
CoreDumpDirectory /tmp
CONF
my $dir_pid = sub { open my $fh, '<', "$dir/httpd.pid" or return 0; (<$fh> // '') =~ /(\d+)/ ? $1 : 0 };
my $count = sub { my @l = httpd_log($dir) =~ /CGIPLUS1202: /g; scalar @l };
sleep 1;
ok t_cmp($count->(), 1, 'one 1202 line at start, with four children');
httpd_graceful($dir);
for (1 .. 50) { last if $count->() >= 2; sleep 0.1 }
sleep 1;
ok t_cmp($count->(), 2, 'and one more for a graceful restart');
my $hpid = $dir_pid->();
# the graceful restart's new children (up to 10 s: a busy machine, the
# sanitizer build)
my @kids;
for (1 .. 100) {
    @kids = grep { (stat "/proc/$_")[4] != 0 } map { /(\d+)/ } `pgrep -P $hpid -x apache2`;
    last if @kids;
    sleep 0.1;
}
my @dumpable = grep { (stat "/proc/$_/mem")[4] != 0 } @kids; # a non-dumpable process's /proc files are root's
ok t_cmp(scalar(@kids) > 0 && @dumpable == @kids ? 1 : 0, 1,
         'the children are dumpable, as CoreDumpDirectory wants (' . scalar(@dumpable) . ' of ' . scalar(@kids) . ')');
