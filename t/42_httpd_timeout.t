# httpd's Timeout below the script's no-progress timeout (docs/RUNNER.md,
# "Interplay with httpd's Timeout"): httpd gives up first and answers 504.
# Relayed by the runner, the request is aborted (1081, which names httpd's
# Timeout: the runner is not lost) and its worker, read to its sentinel,
# serves again; on the direct path the child stops the worker (1706). The
# 1081 line said "lost the runner", sending an admin after a runner crash
# that never was. A private httpd with Timeout 3.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_check private_dir
                    private_log private_wait_log private_get resp_code resp_pid);
use FreePort qw(free_port);
use IO::Socket::INET;
use lib 't/htdocs/pool/lib';
use PoolTest qw(kept_get kept_direct);

plan tests => 13;

my $vars = Apache::Test::config()->{vars};
my $dir = private_dir('httpd-timeout');
my $pool = "$vars->{documentroot}/pool";

my $port = free_port();
open my $cf, '>', "$dir/httpd.conf" or die "httpd.conf: $!";
print $cf private_conf($dir, $port, ['alias'], <<"CONF");
Timeout 3
# the runner's 2021 (a request it hands to a worker itself) is at debug
LogLevel info cgiplus:debug
Alias /relayed/ $pool/
Alias /direct/ $pool/
<Directory $pool>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusTimeoutNoProgress 10s
</Directory>
<Location /relayed/>
    CGIplusDirect off
</Location>
CONF
close $cf;

my ($rc, $out) = private_check("$dir/httpd.conf");
ok t_cmp($out, qr/CGIPLUS1611: .*CGIplusTimeoutNoProgress 10s is not below httpd's Timeout/,
         'httpd -t warns (1611)');
ok t_cmp(private_start("$dir/httpd.conf", $port) ? 1 : 0, 1, 'the private httpd started');

# Relayed.
my $w = resp_pid(private_get($port, '/relayed/app.pl'));
ok $w;
# (it ends 1 s after the 504, well before the runner's limit for a worker
# whose client left: one more Timeout, 2084)
ok t_cmp(resp_code(private_get($port, '/relayed/app.pl?sleep=4')), 504, "relayed: httpd's Timeout answers 504");
my $log = private_log($dir);
ok t_cmp($log, qr/CGIPLUS1081: httpd's Timeout passed waiting for the runner \(pid \d+\) before the response of \S+app\.pl began \(worker pid $w had it\)/,
         '1081 names httpd\'s Timeout');
ok t_cmp($log =~ /lost the runner/ ? 1 : 0, 0, 'and does not say the runner was lost');
sleep 2; # the script ends its sleep; the runner reads it to its sentinel
ok t_cmp(resp_pid(private_get($port, '/relayed/app.pl')), $w, 'the same worker serves again');

# A connection whose httpd child takes /direct/app.pl's worker itself, and
# that worker's pid.
sub direct_conn {
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 10) or die "connect: $!";
    return ($s, resp_pid(kept_direct($s, '/direct/app.pl?w=%d', "$dir/error_log")));
}

# Direct: a worker's second request, on a connection its child knows it on.
my ($ds, $d) = direct_conn();
ok t_cmp(resp_code(kept_get($ds, '/direct/app.pl?sleep=5')), 504, "direct: httpd's Timeout answers 504");
close $ds;
ok t_cmp(private_wait_log($dir, qr/CGIPLUS1706: .*worker pid $d\b.*stopping the worker/), 1,
         'and the child stops that worker (1706)');

# A header begun (its first line) and not ended within Timeout: the same
# 504 and lines (the runner and the direct path hold a header until it
# ends), not 1074, which the module's own header scan would log.
my $off = length private_log($dir);
ok t_cmp(resp_code(private_get($port, '/relayed/app.pl?halfhead=4')), 504,
         'relayed: a header not ended within Timeout: 504');
ok t_cmp(substr(private_log($dir), $off), qr/CGIPLUS1081: httpd's Timeout passed waiting for the runner \(pid \d+\) before the response of \S+app\.pl began/,
         '... 1081');
# (a worker's second request: the direct path, as above)
($ds, $d) = direct_conn();
$off = length private_log($dir);
ok t_cmp(resp_code(kept_get($ds, '/direct/app.pl?halfhead=5')), 504,
         'direct: a header not ended within Timeout: 504');
close $ds;
ok t_cmp(private_wait_log($dir, qr/CGIPLUS1706: [^\n]*app\.pl \(worker pid $d\): httpd's timeout after \d+ ms; answering 504 and stopping the worker/), 1,
         '... 1706');
