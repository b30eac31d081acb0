# What an administrator or a script author meets first: a request mod_cgiplus
# refuses before (or as) a script runs. Each is answered as mod_cgi answers
# it, logged with its id, runs nothing twice, and the next request is fine:
# Options ExecCGI off (1082, 403), no such script (1084, 404), a directory
# (1085, 403), path info under AcceptPathInfo Off (1086, 404), a persistent
# script without an execute bit (the runner's answer, 1065, 403), the same
# under an engine (1300, 403), X-CGIplus-File where the server has no
# CGIplusOffloadRoot (1542, 403); the runner's queue full or waited out
# (2008, 2063, 503). A private httpd.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use Time::HiRes qw(sleep);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_dir private_log private_wait_log
                    private_get resp_code resp_pid resp_body);
use FreePort qw(free_port);

plan tests => 36;

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $dir = private_dir('err-request');
mkdir "$dir/$_" or die "$dir/$_: $!" for qw(s s/sub s/noexec e);
chmod 0755, "$dir/$_" for qw(s s/sub s/noexec e);

# A persistent script: one line per request, its pid and a count (a request
# run twice shows as a count that skips).
my $plus = <<"PL";
#!/usr/bin/perl
use strict;
use lib '$top/lib/perl';
use CGIplus;
\$| = 1;
my \$n = 0;
while (CGIplus::accept()) {
    \$n++;
    print "X-CGIplus-File: /etc/hostname\\n" if (\$ENV{QUERY_STRING} // '') eq 'off';
    select undef, undef, undef, \$1 if (\$ENV{QUERY_STRING} // '') =~ /sleep=([\\d.]+)/;
    print "Content-Type: text/plain\\nX-Pid: \$\$\\n\\n";
    print "pid=\$\$ n=\$n\\n";
    CGIplus::finish();
}
PL
my $cgi = "#!/usr/bin/perl\nprint \"Content-Type: text/plain\\nX-Pid: \$\$\\n\\nran \$ENV{SCRIPT_NAME}\\n\";\n";
my %files = ('s/ok.pl' => [$plus, 0755], 's/q.pl' => [$plus, 0755], 's/noexec/ok.pl' => [$plus, 0755],
             's/plain.pl' => [$plus, 0644],
             'e/ok.pl' => [$cgi, 0755], 'e/plain.pl' => [$cgi, 0644]);
for my $f (sort keys %files) {
    open my $fh, '>', "$dir/$f" or die "$dir/$f: $!";
    print $fh $files{$f}[0];
    close $fh;
    chmod $files{$f}[1], "$dir/$f";
}

my $port = free_port();
open my $cf, '>', "$dir/httpd.conf" or die "httpd.conf: $!";
print $cf private_conf($dir, $port, ['alias'], <<"CONF");
LogLevel info cgiplus:info
# (headers big enough to pass the 1 MiB of CGI variables a request may have)
LimitRequestFieldSize 65000
Alias /s/ $dir/s/
Alias /nopi/ $dir/s/
Alias /e/ $dir/e/
<Directory $dir/s>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusMaxWorkers 1
</Directory>
<Directory $dir/s/noexec>
    Options -ExecCGI
</Directory>
# relayed: the runner's own queue
<Location /s/q.pl>
    CGIplusDirect off
    CGIplusQueueDepth 1
    CGIplusQueueWait 1s
</Location>
<Location /nopi/>
    AcceptPathInfo Off
</Location>
<Directory $dir/e>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusEngine $top/lib/perl/cgiplus-engine-perl
</Directory>
CONF
close $cf;
ok t_cmp(private_start("$dir/httpd.conf", $port) ? 1 : 0, 1, 'the private httpd started');

# status and body of one GET
sub get {
    my $r = private_get($port, $_[0]);
    return (resp_code($r), resp_body($r), resp_pid($r));
}

my ($code, $body, $pid) = get('/s/ok.pl');
ok t_cmp("$code $body", qr/\A200 pid=\d+ n=1\n\z/, 'a persistent script answers');
my $n = 1;
# The next request to the worker: its own count, one more (nothing ran twice).
sub next_fine {
    my ($what) = @_;
    my ($c, $b) = get('/s/ok.pl');
    $n++;
    ok t_cmp("$c $b", "200 pid=$pid n=$n\n", "after $what: the same worker serves the next request, once");
}

my @cases = (
    ['/s/noexec/ok.pl', 403, qr{CGIPLUS1082: Options ExecCGI is off in this directory: \S+/s/noexec/ok\.pl}, 'Options -ExecCGI'],
    ['/s/nosuch.pl', 404, qr{CGIPLUS1084: script not found or unable to stat: \S+/s/nosuch\.pl}, 'no such script'],
    ['/s/sub/', 403, qr{CGIPLUS1085: attempt to invoke directory as script: \S+/s/sub/?}, 'a directory'],
    ['/nopi/ok.pl/extra', 404, qr{CGIPLUS1086: AcceptPathInfo off disallows user's path: \S+/s/ok\.pl}, 'path info, AcceptPathInfo Off'],
    ['/s/plain.pl', 403, qr{CGIPLUS1065: the runner cannot run \S+/s/plain\.pl: Permission denied}, 'no execute bit, persistent'],
    ['/e/plain.pl', 403, qr{CGIPLUS1300: script not executable \(an engine runs only what plain CGI would\): \S+/e/plain\.pl}, 'no execute bit, under an engine'],
    # (this one runs the script: its count goes on)
    ['/s/ok.pl?off', 403, qr{CGIPLUS1542: script \S+/s/ok\.pl answered X-CGIplus-File /etc/hostname, but no CGIplusOffloadRoot is configured for this server; answering 403},
     'X-CGIplus-File, no CGIplusOffloadRoot', 1],
);
for my $c (@cases) {
    my ($u, $want, $re, $what, $ran) = @$c;
    ($code, $body) = get($u);
    $n++ if $ran;
    ok t_cmp($code, $want, "$what: $want");
    ok t_cmp(private_wait_log($dir, $re), 1, "$what: logged with its id");
    next_fine($what);
}

ok t_cmp(private_wait_log($dir, qr{CGIPLUS2007: \S+/s/plain\.pl: Permission denied \(request /s/plain\.pl\)}), 1,
         "no execute bit, persistent: the runner's own line (2007)");

# Under the engine, an executable script runs.
($code, $body) = get('/e/ok.pl');
ok t_cmp("$code $body", "200 ran /e/ok.pl\n", 'the engine runs an executable script');

# The runner's queue (relayed): one worker busy, one request waiting; the
# next is refused at once (2008, and httpd's 1061 says why), the waiting one
# gets 503 after CGIplusQueueWait (2063, 1061); the busy one completes, and
# the next request is served. Each answered 503 with Retry-After.
my $q0 = private_get($port, '/s/q.pl');
my ($qpid) = $q0 =~ /pid=(\d+) n=1/;
my $busy = PrivateHttpd::private_start_get($port, '/s/q.pl?sleep=2.5');
sleep 0.3;
my $waits = PrivateHttpd::private_start_get($port, '/s/q.pl?waits');
sleep 0.3;
my $full = private_get($port, '/s/q.pl?full');
ok t_cmp(resp_code($full) . ($full =~ /^Retry-After: \d+/mi ? ' retry' : ''), '503 retry', 'the runner\'s queue full: 503 with Retry-After');
ok t_cmp(private_wait_log($dir, qr{CGIPLUS2008: \S+/s/q\.pl: queue full \(1 waiting, 1 worker of 1\); answering overloaded at once}), 1,
         'the runner says so (2008)');
ok t_cmp(private_wait_log($dir, qr{CGIPLUS1061: \S+/s/q\.pl: all of its workers are busy and its queue is full}), 1,
         'and httpd too (1061)');
my $w = PrivateHttpd::private_finish($waits);
ok t_cmp(resp_code($w) . ($w =~ /^Retry-After: \d+/mi ? ' retry' : ''), '503 retry', 'the waiting one: 503 after CGIplusQueueWait');
ok t_cmp(private_wait_log($dir, qr{CGIPLUS2063: \S+/s/q\.pl: 1 request waited 1000 ms for a worker; answered overloaded}), 1,
         'the runner says so (2063)');
ok t_cmp(private_wait_log($dir, qr{CGIPLUS1061: \S+/s/q\.pl: it waited CGIplusQueueWait in the runner's queue and no worker came free}), 1,
         'and httpd too (1061)');
my $b = PrivateHttpd::private_finish($busy);
ok t_cmp(resp_code($b) . ' ' . ($b =~ /pid=(\d+) n=(\d+)/ ? "$1 $2" : ''), "200 $qpid 2", 'the busy one completes');
my $q3 = private_get($port, '/s/q.pl');
ok t_cmp(resp_code($q3) . ' ' . ($q3 =~ /pid=(\d+) n=(\d+)/ ? "$1 $2" : ''), "200 $qpid 3",
         'the next is served by the same worker: neither refused request ran');

# CGI variables over the protocol's 1 MiB in all (20 headers of 60000
# bytes, which this server's LimitRequestFieldSize lets through): 500, said
# (1031); the script does not run, and the next request is served.
{
    my $big = join '', map { "X-Big-$_: " . ('v' x 60000) . "\r\n" } 1 .. 20;
    my $sock = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 10) or die "connect: $!";
    print $sock "GET /s/ok.pl HTTP/1.1\r\nHost: 127.0.0.1\r\n${big}Connection: close\r\n\r\n";
    my $resp = do { local $/; <$sock> } // '';
    ok t_cmp(resp_code($resp), 500, 'CGI variables over 1 MiB: 500');
    ok t_cmp(private_wait_log($dir, qr{CGIPLUS1031: the CGI variables of this request take \d+ bytes, more than the protocol's 1048576: \S+/s/ok\.pl}), 1,
             'and says why (1031)');
    my ($c, $b) = get('/s/ok.pl');
    $n++;
    ok t_cmp("$c $b", "200 pid=$pid n=$n\n", 'the script did not run; the next request is served, once');
}
