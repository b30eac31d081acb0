# What an administrator expects around the request path (issue 13): the
# version in the Server banner and in the startup lines; scripts' PATH fixed
# (never the PATH httpd was started with, which t/run-apache-test marks);
# a default idle timeout; the runner's lines in httpd's error log format,
# in the current error log after a rotation and graceful restart, and
# following LogLevel cgiplus:LEVEL; a script's crash one record in its
# virtual host's log.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use IO::Socket::INET;
use Time::HiRes qw(sleep);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget status pool_of wait_for runner_pid);

plan tests => 30;

my $vars = Apache::Test::config()->{vars};
my $errlog = "$vars->{t_logs}/error_log";
my $vhlog = "$vars->{t_logs}/vhlog_error_log"; # its own ErrorLog (extra_cgi.conf.in)
my $levelconf = "$vars->{t_logs}/cgiplus-reload-ship.conf";
sub slurp { open my $fh, '<', $_[0] or return ''; local $/; return <$fh> }
sub field { my ($r, $k) = @_; return ($r->{body} =~ /^\Q$k\E=(.*)$/m)[0] // '' }
my ($version) = slurp("$vars->{top_dir}/configure.ac") =~ /^AC_INIT\(\[mod_cgiplus\],\s*\[([^\]]+)\]/m;
my $stamp = qr/\[\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d\.\d{6} \d{4}\]/; # httpd's

sub httpd_pid { my $p = slurp("$vars->{t_logs}/httpd.pid"); return $p =~ /^(\d+)/ ? $1 : 0 }

# A graceful restart, done once the new generation's startup line is in
# the (possibly new) error log and the runner has read its settings again.
my $generations = 0;
sub graceful {
    my $reloads = status()->{runner}{reloads};
    my $before = () = slurp($errlog) =~ /CGIPLUS1610:/g;
    kill 'USR1', httpd_pid();
    my $ok = wait_for(sub { my $n = () = slurp($errlog) =~ /CGIPLUS1610:/g; $n > $before }, 15, 0.1)
        && wait_for(sub { my $r = hget('/cgiplus-status?json');
                          $r->{code} == 200 && status()->{runner}{reloads} > $reloads }, 15, 0.1);
    die "graceful restart did not complete\n" unless $ok;
}

# ---- version
my $r = hget('/pool/stat/app.pl');
ok t_cmp($r->{headers}{server} // '', qr{\bmod_cgiplus/\Q$version\E\b},
         "the Server banner names mod_cgiplus/$version (ServerTokens Full)");
my $log = slurp($errlog);
ok t_cmp($log, qr{\[cgiplus:notice\] .*CGIPLUS1610: mod_cgiplus/\Q$version\E \(protocol \d+\) configured},
         'the module\'s startup line says its version (notice: whatever LogLevel says)');
ok t_cmp($log, qr{^$stamp \[cgiplus-runner:info\] \[pid \d+\] CGIPLUS2056: cgiplus-runner/\Q$version\E listening}m,
         'the runner\'s startup line says its version, with httpd\'s timestamp');

# ---- PATH: fixed, never the starter's
$r = hget('/pool/sec/whoami.pl');
ok t_cmp(field($r, 'path'), '/usr/local/bin:/usr/bin:/bin', "a worker's own PATH is the fixed one");
ok t_cmp(field($r, 'reqpath'), '/usr/local/bin:/usr/bin:/bin',
         "and a request's variables leave it so (not httpd's PATH)");
$r = hget('/pool/cgimode/whoami.pl');
ok t_cmp(field($r, 'reqpath'), '/usr/local/bin:/usr/bin:/bin', 'plain CGI: the fixed PATH');
$r = hget('/pool/path/whoami.pl');
ok t_cmp(field($r, 'reqpath'), '/opt/cgiplus-test/bin:/usr/bin', 'CGIplusSetEnv PATH replaces it for a worker');
$r = hget('/pool/pathcgi/whoami.pl');
ok t_cmp(field($r, 'reqpath'), '/opt/cgiplus-test/bin:/usr/bin', 'and for plain CGI');
my $env = hget('/cgi-perl/env.pl')->{body} . hget('/perl/env.pl')->{body};
ok t_cmp($env =~ /cgiplus-starter-path/ ? 1 : 0, 0, 'no script sees the PATH httpd was started with');

# ---- the default idle timeout
my $p = pool_of(status(), 'stat');
ok t_cmp($p ? $p->{settings}{idle_timeout} : -1, 300000,
         'a pool no CGIplusIdleTimeout names stops idle workers after 5 minutes');

# ---- a crash: one record, in the virtual host's log
my $hp = do { my $old = Apache::TestRequest::module('cgiplus_vhlog');
              my $h = Apache::TestRequest::hostport(); Apache::TestRequest::module($old); $h };
my $crashmark = length slurp($vhlog);
my $s = IO::Socket::INET->new(PeerAddr => $hp, Timeout => 10) or die "connect $hp: $!";
# the header goes out first (after=0.3), so the crash cuts a started response
print $s "GET /pool/crash/app.pl?after=0.3&crash=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my $resp = do { local $/; <$s> } // '';
# The worker dies mid-body: the client sees the cut response (with its
# X-Pid) or, when httpd had not sent the headers yet, nothing or a 502;
# the worker's pid comes from the record.
my $crashlog = wait_for(sub { my $t = substr(slurp($vhlog), $crashmark); $t =~ /CGIPLUS10(64|72):/ ? $t : '' }, 5) || '';
my ($pid) = $crashlog =~ /CGIPLUS10(?:64|72): script \S+app\.pl \(worker pid (\d+)\)/;
my ($xpid) = $resp =~ /^X-Pid: (\d+)/mi;
ok t_cmp(defined $pid && (!defined $xpid || $xpid == $pid) ? 1 : 0, 1,
         'the crash is recorded in the virtual host\'s own log, for the worker that answered');
$pid //= 0;
my @vh = grep { /\bpid $pid\b/ } split /\n/, $crashlog;
ok t_cmp(scalar(@vh), 1, 'the virtual host\'s log has one line about the crash');
ok t_cmp($vh[0] // '', qr/\[cgiplus:error\] .*CGIPLUS10(64|72): script \S+app\.pl \(worker pid $pid\) .*killed by signal 9/,
         'naming the script, the worker and how it ended');
sleep 0.3;
my @main = grep { /\bpid $pid\b/ && /crash|killed|ended/ && !/:(?:debug|trace\d)\]/ } split /\n/, slurp($errlog);
ok t_cmp(scalar(@main), 0, 'the main log has nothing above debug about it (the runner\'s own lines are debug)');

# A worker that says why on stderr and exits before answering: its line and
# the one crash record, both in the virtual host's log, none in the main one.
my $vhmark = length slurp($vhlog);
$s = IO::Socket::INET->new(PeerAddr => $hp, Timeout => 10) or die "connect $hp: $!";
print $s "GET /pool/crash/app.pl?die_loud=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
$resp = do { local $/; <$s> } // '';
ok t_cmp($resp, qr{^HTTP/1\.1 502 }, 'a worker exiting before its response: 502');
my $vhnew = wait_for(sub { my $t = substr(slurp($vhlog), $vhmark); $t =~ /CGIPLUS10(64|72):/ && $t =~ /dying loudly/ ? $t : '' }, 5) || '';
my ($lpid) = $vhnew =~ /dying loudly \(pid (\d+)\)/;
$lpid //= 0;
my @vhl = grep { /\bpid $lpid\b/ && !/:trace\d\]/ } split /\n/, $vhnew;
ok t_cmp(scalar(@vhl), 2, "the virtual host's log: its stderr line and one crash record (pid $lpid)");
ok t_cmp(join("\n", @vhl), qr/CGIPLUS1064: End of script output before headers: \S+app\.pl \(worker pid $lpid .*exit/,
         'the crash record names the script, the worker and its exit');
sleep 0.3;
# (debug and trace lines are below it: a trace line may hold the pid as a byte count)
my @mainl = grep { /\bpid $lpid\b/ && !/:(?:debug|trace\d)\]/ && !/CGIPLUS2013: started worker/ } split /\n/, slurp($errlog);
ok t_cmp(scalar(@mainl), 0, 'the main log has nothing above debug about it'
         . (@mainl ? ": @mainl" : ''));

# ---- rotation: rename the log, graceful restart, the runner follows
rename $errlog, "$errlog.rot" or die "rename: $!";
graceful();
ok t_cmp(-s $errlog ? 1 : 0, 1, 'httpd opened a new error log');
ok t_cmp(slurp($errlog), qr/^$stamp \[cgiplus-runner:info\] \[pid \d+\] CGIPLUS2051: SIGHUP/m,
         'the runner\'s SIGHUP line is in the new log, with a timestamp');
my $mark = length slurp("$errlog.rot");
hget('/pool/maxreq/app.pl') for 1 .. 4; # three requests per worker: one ends, one starts
my $new = wait_for(sub { my $t = slurp($errlog); $t =~ /CGIPLUS2013: started worker/ ? $t : '' }, 5);
ok t_cmp($new ? 1 : 0, 1, 'a runner line triggered after the rotation is in the new log');
ok t_cmp($new, qr/^$stamp \[cgiplus-runner:info\] \[pid \d+\] CGIPLUS2013: started worker/m,
         'with httpd\'s timestamp format');
# (old-generation httpd children may still finish their requests there)
ok t_cmp(substr(slurp("$errlog.rot"), $mark) =~ /\[cgiplus-runner:/ ? 1 : 0, 0,
         'and no runner line went to the rotated file');

# ---- LogLevel cgiplus:warn hides the runner's info lines; cgiplus:debug shows them
sub write_level { open my $fh, '>', $levelconf or die; print $fh "LogLevel cgiplus:$_[0]\n"; close $fh }
write_level('warn');
graceful();
my $at = length slurp($errlog);
hget('/pool/maxreq/app.pl') for 1 .. 4;
sleep 0.5;
my $tail = substr(slurp($errlog), $at);
ok t_cmp($tail =~ /\[cgiplus-runner:info\]/ ? 1 : 0, 0, 'LogLevel cgiplus:warn: no runner info lines');
ok t_cmp(status()->{runner}{reloads} > 0 ? 1 : 0, 1, 'while the runner keeps serving');
write_level('debug');
graceful();
$at = length slurp($errlog);
hget('/pool/maxreq/app.pl') for 1 .. 4;
$tail = wait_for(sub { my $t = substr(slurp($errlog), $at); $t =~ /\[cgiplus-runner:debug\]/ ? $t : '' }, 5);
ok t_cmp($tail, qr/\[cgiplus-runner:info\] .*CGIPLUS2013/, 'LogLevel cgiplus:debug: runner info lines');
ok t_cmp($tail, qr/\[cgiplus-runner:debug\]/, 'and debug lines');

# Back to the suite's settings, the rotated lines put back in front.
unlink $levelconf;
my $runner = runner_pid();
graceful();
ok t_cmp(runner_pid(), $runner, 'the same runner through every restart');
my $all = slurp("$errlog.rot") . slurp($errlog);
open my $fh, '>', "$errlog.new" or die;
print $fh $all;
close $fh;
rename "$errlog.new", $errlog or die;
unlink "$errlog.rot";
graceful();
ok t_cmp(slurp($errlog), qr/CGIPLUS2051: SIGHUP.*\z/s, 'the suite\'s log is whole again');
ok t_cmp(hget('/pool/stat/app.pl')->{code}, 200, 'and requests are served');
