# One record per crash (docs/RUNNER.md, "Logging"; errors.md 2028): a
# worker that dies in a request is logged by the module in the request's
# virtual host (1064 before its response, 1072 after it began), and the
# runner's own 2028 line about it is debug, so Debian's LogLevel warn shows
# the crash once. On the direct path (the default) the runner, which did
# not hold the request, logged 2028 at warn as well: two records of one
# crash. A private httpd at LogLevel warn.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_dir private_log private_wait_log
                    private_get resp_code resp_pid);
use FreePort qw(free_port);

plan tests => 8;

my $vars = Apache::Test::config()->{vars};
my $dir = private_dir('crash-one-record');
my $pool = "$vars->{documentroot}/pool";

my $port = free_port();
open my $cf, '>', "$dir/httpd.conf" or die "httpd.conf: $!";
print $cf private_conf($dir, $port, ['alias'], <<"CONF");
LogLevel warn
Alias /p/ $pool/
<Directory $pool>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
CONF
close $cf;

# The runner reaps its worker (and logs 2028, at whatever level) before
# the pid leaves /proc.
sub wait_reaped { my ($pid) = @_; my $t = time + 10; sleep 0.1 while time < $t && -e "/proc/$pid"; sleep 0.3; }

ok t_cmp(private_start("$dir/httpd.conf", $port) ? 1 : 0, 1, 'the private httpd started');

# The worker's first request starts it through the runner; the next ones
# are served on the direct path.
my $first = private_get($port, '/p/app.pl');
my $wpid = resp_pid($first);
ok t_cmp(resp_code($first) . ($wpid ? ' pid' : ''), '200 pid', 'a worker serves');
ok t_cmp(resp_pid(private_get($port, '/p/app.pl')), $wpid, 'the same worker again (direct path)');

# It dies before its response: one record, the module's 1064.
ok t_cmp(resp_code(private_get($port, '/p/app.pl?die_loud')), 502, 'a worker that dies in its request: 502');
private_wait_log($dir, qr/CGIPLUS1064: End of script output before headers: \S+app\.pl \(worker pid $wpid /);
wait_reaped($wpid);
my $log = private_log($dir);
ok t_cmp(scalar(() = $log =~ /CGIPLUS1064: End of script output before headers: \S+app\.pl \(worker pid $wpid /g), 1,
         'the module logs it once (1064)');
ok t_cmp(scalar(() = $log =~ /CGIPLUS2028: worker pid $wpid of /g), 0,
         'the runner adds no line at warn (2028 is debug then)');

# It is killed by a signal in its response: the module's line alone (1072,
# or 1064 when nothing had gone to the client yet).
my $w2 = resp_pid(private_get($port, '/p/app.pl'));
$w2 = resp_pid(private_get($port, '/p/app.pl')) if $w2 == $wpid || !$w2;
private_get($port, '/p/app.pl?crash');
my $rec = qr/CGIPLUS10(?:64|72): script \S+app\.pl \(worker pid $w2\)/;
private_wait_log($dir, $rec);
wait_reaped($w2);
$log = private_log($dir);
ok t_cmp(scalar(() = $log =~ /$rec/g), 1, 'a worker killed mid-response: logged once by the module');
ok t_cmp(scalar(() = $log =~ /CGIPLUS2028: worker pid $w2 of /g), 0,
         'and no 2028 at warn for it');
