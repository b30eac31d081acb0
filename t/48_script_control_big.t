# Script-Control after a big header block (session 37): with
# CGIplusMaxHeaderSize at 1 MiB a header block may pass 64 KiB, where the
# runner's scan for Script-Control stopped: a "Script-Control: no-abort"
# after 400 KiB of headers was applied on the direct path (from the parsed
# header) but not on a relayed request, whose worker was stopped at its
# timeout. Now both paths let a no-abort worker whose request timed out
# finish and serve again, as with the line first.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop private_dir libexec);
use FreePort qw(free_ports);
use AppTest qw(write_file);
use RawHTTP qw(raw_request);

my @cases = (['/d/', 'direct'], ['/r/', 'relayed']);
my @blocks = (['small', 'Script-Control first'], ['big', 'Script-Control after 400 KiB of headers']);
plan tests => 1 + 3 * @cases * @blocks;

my $top = Apache::Test::config()->{vars}{top_dir};
my $lib = libexec();
my $dir = private_dir('scbig');
my ($port) = free_ports(1);
my $d = "$dir/s";
mkdir $d;
chmod 0755, $d;

# ?pid: its pid. ?small, ?big: a header block (200 lines of 2 KiB first
# with big), Script-Control: no-abort, then the body once the test made
# its go file: past the pool's 2 s output timeout, within the one more
# no-abort gives.
write_file("$d/sc.pl", <<"PL", 0755);
#!/usr/bin/perl
use lib '$top/lib/perl';
use CGIplus;
\$| = 1;
while (CGIplus::accept()) {
    my \$q = \$ENV{QUERY_STRING} // '';
    if (\$q eq 'pid') {
        print "Content-Type: text/plain\\r\\n\\r\\npid=\$\$\\n";
    } else {
        print "Content-Type: text/plain\\r\\n";
        printf "X-Big-%03d: %s\\r\\n", \$_, 'x' x 2000 for \$q eq 'big' ? 1 .. 200 : ();
        print "Script-Control: no-abort\\r\\n\\r\\n";
        for (1 .. 3000) { last if -e '$dir/go'; select undef, undef, undef, 0.02 }
        print "pid=\$\$\\n";
    }
    CGIplus::finish();
}
PL

my $extra = <<"CONF";
LoadModule alias_module $lib/mod_alias.so
AliasMatch ^/[a-z]/(.*)\$ $d/\$1
<Directory $d>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusMaxWorkers 1
    CGIplusTimeoutOutput 2s
</Directory>
<Location /r/>
    CGIplusDirect off
</Location>
CONF
write_file("$dir/httpd.conf", private_conf($dir, $port, [], $extra), 0644);
ok t_cmp(private_start("$dir/httpd.conf", $port), 1, 'a private httpd');

sub pid_of { my $r = raw_request("127.0.0.1:$port", 'GET', "$_[0]sc.pl?pid", []); ($r->{body} =~ /^pid=(\d+)/)[0] // 0 }

for my $c (@cases) {
    my ($p, $side) = @$c;
    for my $b (@blocks) {
        my ($q, $what) = @$b;
        my $before = pid_of($p); # (after the first request the direct path claims it)
        $before = pid_of($p);
        my $r = raw_request("127.0.0.1:$port", 'GET', "${p}sc.pl?$q", []);
        write_file("$dir/go", '', 0644);
        ok t_cmp($r->{body} =~ /pid=/ ? 'complete' : 'cut', 'cut', "$side, $what: the request times out (2 s)");
        # no-abort: the worker finishes once told and serves the next
        # request (one worker: the request waits for it); without, it was
        # stopped at the timeout
        my $after = pid_of($p);
        unlink "$dir/go";
        ok t_cmp($before ? 1 : 0, 1, "$side, $what: a worker served (pid $before)");
        ok t_cmp($after, $before, "$side, $what: no-abort applied: the same worker serves again");
    }
}
private_stop("$dir/httpd.pid");
