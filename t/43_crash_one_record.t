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
use IO::Socket::INET;
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir);
use FreePort qw(free_port);

plan tests => 8;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/crash-one-record";
my $pool = "$vars->{documentroot}/pool";
private_stop("$dir/httpd.pid") if -e "$dir/httpd.pid";
END { private_stop("$dir/httpd.pid") }
fresh_dir($dir);

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

sub log_text { open my $fh, '<', "$dir/error_log" or return ''; local $/; return <$fh> }
sub get {
    my ($path) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 10) or return '';
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    local $/;
    return <$s> // '';
}
sub code { $_[0] =~ m{^HTTP/1\.1 (\d+)} ? $1 : 0 }
sub pid { $_[0] =~ /^X-Pid: (\d+)/m ? $1 : 0 }
sub wait_log { my ($re) = @_; my $t = time + 5; sleep 0.1 while time < $t && log_text() !~ $re; }
# The runner reaps its worker (and logs 2028, at whatever level) before
# the pid leaves /proc.
sub wait_reaped { my ($pid) = @_; my $t = time + 10; sleep 0.1 while time < $t && -e "/proc/$pid"; sleep 0.3; }

ok t_cmp(private_start("$dir/httpd.conf", $port) ? 1 : 0, 1, 'the private httpd started');

# The worker's first request starts it through the runner; the next ones
# are served on the direct path.
my $first = get('/p/app.pl');
my $wpid = pid($first);
ok t_cmp(code($first) . ($wpid ? ' pid' : ''), '200 pid', 'a worker serves');
ok t_cmp(pid(get('/p/app.pl')), $wpid, 'the same worker again (direct path)');

# It dies before its response: one record, the module's 1064.
ok t_cmp(code(get('/p/app.pl?die_loud')), 502, 'a worker that dies in its request: 502');
wait_log(qr/CGIPLUS1064: script \S+app\.pl \(worker pid $wpid\)/);
wait_reaped($wpid);
my $log = log_text();
ok t_cmp(scalar(() = $log =~ /CGIPLUS1064: script \S+app\.pl \(worker pid $wpid\)/g), 1,
         'the module logs it once (1064)');
ok t_cmp(scalar(() = $log =~ /CGIPLUS2028: worker pid $wpid of /g), 0,
         'the runner adds no line at warn (2028 is debug then)');

# It is killed by a signal in its response: the module's line alone (1072,
# or 1064 when nothing had gone to the client yet).
my $w2 = pid(get('/p/app.pl'));
$w2 = pid(get('/p/app.pl')) if $w2 == $wpid || !$w2;
get('/p/app.pl?crash');
my $rec = qr/CGIPLUS10(?:64|72): script \S+app\.pl \(worker pid $w2\)/;
wait_log($rec);
wait_reaped($w2);
$log = log_text();
ok t_cmp(scalar(() = $log =~ /$rec/g), 1, 'a worker killed mid-response: logged once by the module');
ok t_cmp(scalar(() = $log =~ /CGIPLUS2028: worker pid $w2 of /g), 0,
         'and no 2028 at warn for it');
