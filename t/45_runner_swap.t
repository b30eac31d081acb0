# A graceful restart that changes CGIplusRunnerPath (an upgrade to a new
# runner binary) stops the old runner and starts a new one: a request busy
# on the old runner's worker still completes, and the old runner's exit is
# reaped as mod_cgiplus's (1370), not logged by httpd as a "long lost
# child" (AH00488, warn), which an admin could not explain. On a private
# httpd (the signal goes to its parent only).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_dir private_log
                    private_start_get private_finish pid_in);
use FreePort qw(free_port);

plan tests => 7;

my $vars = Apache::Test::config()->{vars};
my $dir = private_dir('runner-swap');
my $pool = "$vars->{documentroot}/pool";
# the same runner under another name: a new CGIplusRunnerPath
symlink "$vars->{top_dir}/runner/cgiplus-runner", "$dir/runner-new" or die "symlink: $!";

my $port = free_port();
sub write_conf {
    my ($runner) = @_;
    open my $cf, '>', "$dir/httpd.conf" or die "httpd.conf: $!";
    print $cf private_conf($dir, $port, ['alias'], <<"CONF");
LogLevel info
Alias /p/ $pool/
<Directory $pool>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
CONF
    print $cf "CGIplusRunnerPath $runner\n" if $runner;
    close $cf;
}

write_conf(undef);
ok t_cmp(private_start("$dir/httpd.conf", $port) ? 1 : 0, 1, 'the private httpd started');
private_finish(private_start_get($port, '/p/app.pl'));
my $old = pid_in("$dir/cgiplus-runner.pid");
ok $old > 0;

my $busy = private_start_get($port, '/p/app.pl?sleep=2');
sleep 0.5;
write_conf("$dir/runner-new");
kill 'USR1', pid_in("$dir/httpd.pid");
my $new = 0;
for (1 .. 100) {
    $new = pid_in("$dir/cgiplus-runner.pid");
    last if $new && $new != $old;
    sleep 0.1;
}
ok t_cmp($new != $old ? 1 : 0, 1, 'a new runner runs after the path changed');
ok t_cmp(private_log($dir), qr/CGIPLUS1603: the runner's path, socket, user or key changed: stopping cgiplus-runner \(pid $old\)/,
         'httpd said why it stops the old one (1603)');
ok t_cmp(private_finish($busy), qr{^HTTP/1\.1 200}, 'the request busy on the old runner completed');
# the old runner exits once its workers are done; httpd's parent reaps it
my $until = time + 15;
sleep 0.1 while time < $until && -e "/proc/$old";
ok t_cmp(-e "/proc/$old" ? 'still there' : 'gone', 'gone', 'the old runner exited and was reaped');
sleep 0.5;
ok t_cmp(scalar(() = private_log($dir) =~ /long lost child came home/g), 0,
         'httpd does not call the old runner a long lost child');
