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
use IO::Socket::INET;
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_stop private_check fresh_dir);
use FreePort qw(free_port);

plan tests => 9;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/httpd-timeout";
my $pool = "$vars->{documentroot}/pool";
private_stop("$dir/httpd.pid") if -e "$dir/httpd.pid";
END { private_stop("$dir/httpd.pid") }
fresh_dir($dir);

my $port = free_port();
open my $cf, '>', "$dir/httpd.conf" or die "httpd.conf: $!";
print $cf private_conf($dir, $port, ['alias'], <<"CONF");
Timeout 3
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

sub log_text { open my $fh, '<', "$dir/error_log" or return ''; local $/; return <$fh> }
sub get {
    my ($path) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 15) or return '';
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    local $/;
    return <$s> // '';
}
sub code { $_[0] =~ m{^HTTP/1\.1 (\d+)} ? $1 : 0 }
sub pid { $_[0] =~ /^X-Pid: (\d+)/m ? $1 : 0 }

my ($rc, $out) = private_check("$dir/httpd.conf");
ok t_cmp($out, qr/CGIPLUS1611: .*CGIplusTimeoutNoProgress 10s is not below httpd's Timeout/,
         'httpd -t warns (1611)');
ok t_cmp(private_start("$dir/httpd.conf", $port) ? 1 : 0, 1, 'the private httpd started');

# Relayed.
my $w = pid(get('/relayed/app.pl'));
ok $w;
# (it ends 1 s after the 504, well before the runner's limit for a worker
# whose client left: one more Timeout, 2084)
ok t_cmp(code(get('/relayed/app.pl?sleep=4')), 504, "relayed: httpd's Timeout answers 504");
my $log = log_text();
ok t_cmp($log, qr/CGIPLUS1081: httpd's Timeout passed waiting for the runner \(pid \d+\) before the response of \S+app\.pl began \(worker pid $w had it\)/,
         '1081 names httpd\'s Timeout');
ok t_cmp($log =~ /lost the runner/ ? 1 : 0, 0, 'and does not say the runner was lost');
sleep 2; # the script ends its sleep; the runner reads it to its sentinel
ok t_cmp(pid(get('/relayed/app.pl')), $w, 'the same worker serves again');

# Direct: a worker's second request.
my $d = pid(get('/direct/app.pl'));
$d = pid(get('/direct/app.pl')) unless $d;
ok t_cmp(code(get('/direct/app.pl?sleep=5')), 504, "direct: httpd's Timeout answers 504");
my $t = time + 5;
sleep 0.1 while time < $t && log_text() !~ /CGIPLUS1706: .*worker pid $d\b.*stopping the worker/;
ok t_cmp(log_text() =~ /CGIPLUS1706: .*worker pid $d\b.*stopping the worker/ ? 1 : 0, 1,
         'and the child stops that worker (1706)');
