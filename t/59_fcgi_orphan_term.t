# A FastCGI script whose client left runs on (by design: PHP's
# ignore_user_abort) within what bounded its request; past that bound it
# is stopped as a timed-out request's worker: SIGTERM first (SIGKILL after
# CGIplusKillGrace), logged as a script that ran past its request's
# timeout after its client left (CGIPLUS2954), the same way relayed, on
# the direct path and in the fcgid-script drop-in (php-fpm's
# request_terminate_timeout sends SIGTERM too). The direct path killed it
# at once (SIGKILL), logged as unwanted output drained (2504), while the
# relayed path sent SIGTERM (2084) (session 37). A Perl FCGI script that
# notes its SIGTERM tells the two apart.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/lib', 't/htdocs/apps';
use RawHTTP qw(leave_early);
use PrivateHttpd qw(private_conf private_start private_stop private_dir private_wait_log libexec);
use FreePort qw(free_ports);
use AppTest qw(write_file);
use Marks qw(marks_of wait_marks wait_gone);
use RawHTTP qw(raw_request);

my @sides = qw(direct relayed fcgid);
plan tests => 1 + 5 * @sides,
    need { 'needs FCGI (libfcgi-perl)' => !system('perl -MFCGI -e1 2>/dev/null') };

my $lib = libexec();
my $dir = private_dir('fcgiterm');
my ($port) = free_ports(1);
my ($d, $marks) = ("$dir/s", "$dir/marks");
mkdir $_ for $d, $marks;
chmod 0755, $d;
chmod 0777, $marks;

# ?pid: its pid. ?TAG: notes its start, writes 8 KiB lines 50 ms apart
# for 2 s (its client leaves after the first: the writes after tell the
# child or runner so, then fail, ignored as PHP's ignore_user_abort
# ignores them), then waits for TAG.go (60 s at most); notes a SIGTERM.
write_file("$d/run.pl", <<"PL", 0755);
#!/usr/bin/perl
use strict;
use FCGI;
my \$req = FCGI::Request();
while (\$req->Accept() >= 0) {
    my \$tag = \$ENV{QUERY_STRING} // '';
    if (\$tag eq 'pid') {
        print "Content-Type: text/plain\\r\\n\\r\\n\$\$";
        next;
    }
    my \$f = "$marks/\$tag";
    my \$note = sub { open my \$fh, '>>', \$f or return; syswrite \$fh, \$_[0] };
    local \$SIG{TERM} = sub { \$note->("SIGTERM\\n"); exit 0 };
    local \$SIG{PIPE} = 'IGNORE';
    \$note->("started \$\$\\n");
    print "Content-Type: text/plain\\r\\n\\r\\n";
    for (1 .. 40) {
        print 'x' x 8191, "\\n";
        \$req->Flush;
        select undef, undef, undef, 0.05;
    }
    my \$t = time + 60;
    select undef, undef, undef, 0.1 while !-e "\$f.go" && time < \$t;
    \$note->("finished\\n");
}
PL

my $extra = <<"CONF";
LoadModule alias_module $lib/mod_alias.so
AliasMatch ^/[a-z]+/(.*)\$ $d/\$1
<Directory $d>
    Require all granted
    Options +ExecCGI
</Directory>
<LocationMatch ^/(direct|relayed)/>
    SetHandler cgiplus-script
    CGIplusMode fastcgi
    CGIplusMaxWorkers 2
    CGIplusTimeoutOutput 4s
</LocationMatch>
<Location /relayed/>
    CGIplusDirect off
</Location>
# (a server's or virtual host's: the drop-in's output timeout)
FcgidBusyTimeout 4
<Location /fcgid/>
    SetHandler fcgid-script
</Location>
CONF
write_file("$dir/httpd.conf", private_conf($dir, $port, [], $extra), 0644);
ok t_cmp(private_start("$dir/httpd.conf", $port), 1, 'a private httpd');

my %pid;
for my $side (@sides) {
    # a worker that served once: then the direct path claims it
    raw_request("127.0.0.1:$port", 'GET', "/$side/run.pl?pid", []) for 1 .. 2;
    ok t_cmp(leave_early($port, "/$side/run.pl?$side"), 1, "$side: the client read the first 8 KiB and left");
}
for my $side (@sides) {
    ($pid{$side}) = wait_marks($marks, $side, qr/^started \d+/) =~ /^started (\d+)/;
    $pid{$side} //= 0;
    ok t_cmp($pid{$side} ? 1 : 0, 1, "$side: the script ran (pid $pid{$side})");
}
for my $side (@sides) {
    my $pid = $pid{$side};
    ok t_cmp(wait_gone($pid), 1, "$side: past its 4 s it is stopped (pid $pid)");
    ok t_cmp(marks_of($marks, $side), "started $pid\nSIGTERM\n", "$side: with SIGTERM first, and it did not finish");
    ok t_cmp(private_wait_log($dir, qr/CGIPLUS2954: worker pid $pid of \S+run\.pl ran past its request's timeout after its client left/, 30),
             1, "$side: logged as a script past its request's timeout after its client left (2954)");
}
private_stop("$dir/httpd.pid");
