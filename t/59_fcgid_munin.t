# Debian 12's munin CGIs, unedited, as the package runs them under
# mod_fcgid (its apache24.conf: SetHandler fcgid-script inside <IfModule
# mod_fcgid.c>), against mod_cgiplus's fcgid-script drop-in with the
# mod_fcgid stand-in (cgiplus_fcgid_module), on the direct path and
# relayed. The data is real: munin-update (as the munin user) once against
# a private munin-node on a free port. munin-cgi-html's pages and
# munin-cgi-graph's graphs (cached and not, pinpointed, 304, HEAD, 404s, a
# graph it cannot write: its own 500; 12 graphs at once) are compared page
# by page: status, headers (but the date, Server, the framing,
# the process's pid and the cache file's times) and bodies (the generation
# time aside); each CGI is one process across its requests on every side.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use POSIX ();
use File::Path qw(make_path);
use Time::HiRes qw(sleep);
use IO::Socket::INET;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir libexec);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(pool_of);

my $debconf = '/etc/munin/apache24.conf';
sub slurp { open my $fh, '<', $_[0] or return ''; local $/; <$fh> // '' }
my @pages = (
    # munin-cgi-html
    ['/munin-cgi/munin-cgi-html/'],
    ['/munin-cgi/munin-cgi-html/index.html'],
    ['/munin-cgi/munin-cgi-html/test/index.html'],
    ['/munin-cgi/munin-cgi-html/test/node1/index.html'],
    ['/munin-cgi/munin-cgi-html/test/node1/load.html'],
    ['/munin-cgi/munin-cgi-html/test/node1/memory.html'],
    ['/munin-cgi/munin-cgi-html/test/comparison-day.html'],
    ['/munin-cgi/munin-cgi-html/problems.html'],
    ['/munin-cgi/munin-cgi-html/nosuch/index.html'],
    ['/munin-cgi/munin-cgi-html/test/node1/index.html', '-I'],
    # munin-cgi-graph
    ['/munin-cgi/munin-cgi-graph/test/node1/load-pinpoint=PIN.png'],
    ['/munin-cgi/munin-cgi-graph/test/node1/memory-pinpoint=PIN.png?size_x=400&size_y=200'],
    ['/munin-cgi/munin-cgi-graph/test/node1/load-day.png'],
    ['/munin-cgi/munin-cgi-graph/test/node1/load-day.png', '-H', 'If-Modified-Since: Thu, 01 Jan 2099 00:00:00 GMT'],
    ['/munin-cgi/munin-cgi-graph/test/node1/load-day.png', '-I'],
    ['/munin-cgi/munin-cgi-graph/test/node1/nosuch-day.png'],
    ['/munin-cgi/munin-cgi-graph/test/nohost/load-day.png'],
    ['/munin-cgi/munin-cgi-graph/test/node1/load-day.png?a=%3Cx%3E'],
    ['/munin-cgi/munin-cgi-graph/test/node1/load-decade.png'],
    # a graph it cannot write (a directory where its cache file goes): its
    # 500 with a text body
    ['/munin-cgi/munin-cgi-graph/test/node1/uptime-day.png'],
);
plan tests => 4 + 4 * 2 * @pages + 3 + 3 + 2,
    need { 'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so',
           "needs munin's CGIs and munin-node (Debian packages munin, munin-node)"
               => (-r $debconf && -x '/usr/lib/munin/cgi/munin-cgi-graph' && -x '/usr/sbin/munin-node'
                   && -x '/usr/share/munin/munin-update') };

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $lib = libexec();
my $dir = "$vars->{t_logs}/fcgid_munin";
fresh_dir($dir);
my ($nport, $gport, $dport, $rport) = free_ports(4);

# ---- the data: a private munin-node, munin-update once against it
mkdir "$dir/$_" for qw(db log run cgitmp www);
chmod 0777, map { "$dir/$_" } qw(db log run cgitmp www);
write_file("$dir/munin-node.conf", <<"CONF", 0644);
log_level 4
log_file $dir/log/munin-node.log
pid_file $dir/run/munin-node.pid
background 0
setsid 0
user root
group root
host_name node1
allow ^127\\.0\\.0\\.1\$
host 127.0.0.1
port $nport
CONF
write_file("$dir/munin.conf", <<"CONF", 0644);
dbdir $dir/db
htmldir $dir/www
logdir $dir/log
rundir $dir/run
cgitmpdir $dir/cgitmp
tmpldir /etc/munin/templates
staticdir /etc/munin/static
graph_strategy cgi
html_strategy cgi
[test;node1]
    address 127.0.0.1
    port $nport
CONF
my $node = fork // die "fork: $!";
if (!$node) {
    open STDOUT, '>', "$dir/log/munin-node.out";
    open STDERR, '>&', \*STDOUT;
    exec '/usr/sbin/munin-node', '--config', "$dir/munin-node.conf";
    exit 127;
}
END { if ($node) { kill 'TERM', $node; waitpid $node, 0 } }
for (1 .. 100) { last if IO::Socket::INET->new(PeerAddr => "127.0.0.1:$nport"); sleep 0.1 }
# munin-update refuses to run as root
my $update = fork // die "fork: $!";
if (!$update) {
    if ($> == 0) {
        my ($uid, $gid) = (getpwnam('munin'))[2, 3];
        POSIX::setgid($gid);
        POSIX::setuid($uid);
    }
    open STDOUT, '>', "$dir/log/munin-update.out";
    open STDERR, '>&', \*STDOUT;
    # munin-cron's steps: munin-limits and munin-html write what the html
    # CGI reads (html_strategy cgi: munin-html writes its htmlconf cache,
    # no pages; without it munin-cgi-html's second page in a process says
    # "no hosts were configured", under mod_fcgid too)
    exec 'sh', '-c', 'cd /usr/share/munin && ./munin-update --config "$0" && ./munin-limits --config "$0"'
                     . ' && ./munin-html --config "$0"', "$dir/munin.conf";
    exit 127;
}
waitpid $update, 0;
my @rrd = glob("$dir/db/test/node1-load-*.rrd");
ok t_cmp("$? " . scalar(@rrd) . join('', map { -s "$dir/db/$_.storable" ? " $_" : '' } qw(limits htmlconf)),
         '0 1 limits htmlconf', "munin-cron's steps against a private munin-node: the load graph's data, the limits, the html cache");
kill 'TERM', $node;
waitpid $node, 0;
$node = 0;
# munin-cgi-graph's pinpoint: a fixed window around the update, so that the
# image does not move with the clock
my $last = (stat $rrd[0])[9];
my $pin = ($last - 3600) . ',' . ($last + 600);

# ---- Debian's apache24.conf, unedited, and the html CGI as its README
# sets it (html_strategy cgi); munin's config through FcgidInitialEnv, a
# copy for each side with a graph cache of its own (a shared one would
# hand the second side the first side's graph)
my %conf;
for my $side (qw(fcgid ours relayed)) {
    (my $c = slurp("$dir/munin.conf")) =~ s{^cgitmpdir .*}{cgitmpdir $dir/cgitmp/$side}m;
    write_file("$dir/munin-$side.conf", $c, 0644);
    mkdir "$dir/cgitmp/$side";
    chmod 0777, "$dir/cgitmp/$side";
    make_path("$dir/cgitmp/$side/munin-cgi-graph/test/node1/uptime-day.png", { mode => 0755 });
    chmod 0777, "$dir/cgitmp/$side/munin-cgi-graph", "$dir/cgitmp/$side/munin-cgi-graph/test",
          "$dir/cgitmp/$side/munin-cgi-graph/test/node1";
    $conf{$side} = <<"CONF";
LoadModule alias_module $lib/mod_alias.so
LoadModule mime_module $lib/mod_mime.so
LoadModule authz_host_module $lib/mod_authz_host.so
TypesConfig /etc/mime.types
ScriptAlias /munin-cgi/munin-cgi-html /usr/lib/munin/cgi/munin-cgi-html
Include $debconf
FcgidInitialEnv MUNIN_CONFIG $dir/munin-$side.conf
CONF
}
write_file("$dir/fcgid.conf", private_conf("$dir", $gport, [], <<"CONF"), 0644);
LoadModule fcgid_module $lib/mod_fcgid.so
FcgidIPCDir $dir/fcgid
FcgidProcessTableFile $dir/fcgid_shm
$conf{fcgid}
CONF
# a ServerRoot each: its own pid file, log, runner; the relayed side's
# pools are its own (in one httpd both sides would share the CGIs'
# processes, as mod_fcgid's virtual hosts without an Fcgid* line do, and
# munin-cgi-html's pages depend on what its process served before)
for my $side (['ours', $dport, ''], ['relayed', $rport, 'CGIplusDirect off']) {
    my ($name, $p, $more) = @$side;
    mkdir "$dir/$name";
    write_file("$dir/$name.conf", private_conf("$dir/$name", $p, [], <<"CONF"), 0644);
LoadModule cgiplus_fcgid_module $top/mod_cgiplus/.libs/mod_cgiplus.so
$conf{$name}
$more
<Location /status>
    SetHandler cgiplus-status
</Location>
CONF
}
ok t_cmp(private_start("$dir/fcgid.conf", $gport), 1, 'a private httpd with mod_fcgid');
ok t_cmp(private_start("$dir/ours.conf", $dport), 1, 'a private httpd with mod_cgiplus and its stand-in');
ok t_cmp(private_start("$dir/relayed.conf", $rport), 1, 'and one more, relayed (CGIplusDirect off)');
END { private_stop($_) for "$dir/httpd.pid", "$dir/ours/httpd.pid", "$dir/relayed/httpd.pid" }

# What may differ: the date, Server, the framing, the process's pid, the
# cache file's times (Expires, Last-Modified), the generation time.
sub heads {
    my ($h) = @_;
    my @k = grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive|x-munin-pid)$/ } keys %$h;
    return join "\n", map { "$_: " . (/^(expires|last-modified|x-graph-duration)$/ ? 'TIME' : $h->{$_}) } sort @k;
}
sub norm {
    my ($b, $port) = @_;
    $b =~ s/127\.0\.0\.1:$port/127.0.0.1:PORT/g;
    $b =~ s{/cgitmp/(?:fcgid|ours|relayed)/}{/cgitmp/SIDE/}g;
    $b =~ s/\b(?:Sun|Mon|Tue|Wed|Thu|Fri|Sat)[a-z]* \w+ +\d+ \d\d:\d\d:\d\d \w+ \d{4}\b/TIME/g;
    $b =~ s/\b\d{4}-\d\d-\d\d(?:T| )\d\d:\d\d:\d\d\S*/TIME/g;
    return $b;
}

my %port = (fcgid => $gport, dropin => $dport, relayed => $rport);
my (%pids, %n);
for my $page (@pages) {
    my ($path, @args) = @$page;
    $path =~ s/PIN/$pin/;
    # a day graph ends at the last 5 minutes' boundary: not across one
    sleep 1 + 300 - time % 300 if $path =~ /-day\.png/ && time % 300 > 295;
    my %r;
    for my $who (sort keys %port) {
        my ($code, $h, $body) = curl(@args, "http://127.0.0.1:$port{$who}$path");
        write_file("$dir/body-$who-" . ++$n{$who}, $body, 0644);  # for a failing run's reader
        $body = '' if grep { $_ eq '-I' } @args;
        my $nbody = norm($body, $port{$who});
        $r{$who} = { code => $code, h => $h, body => $nbody, len => length $nbody };
        my $cgi = $path =~ /graph/ ? 'graph' : 'html';
        # (all but its failed draw's answer name the process)
        push @{ $pids{$who}{$cgi} }, $h->{'x-munin-pid'} // "none($code)" if $cgi eq 'graph' && $code != 500;
        (my $show = substr($body, 0, 300)) =~ s/\s+/ /g;
        t_debug("$who $path @args: $code " . heads($h) . ', ' . length($body) . ' bytes' . ($path =~ /png/ ? '' : ": $show"));
    }
    for my $who (qw(dropin relayed)) {
        my ($o, $f) = ($r{$who}, $r{fcgid});
        my $what = "$who vs mod_fcgid: $path @args";
        ok t_cmp($o->{code}, $f->{code} || 'an answer from mod_fcgid', "$what: the same status");
        ok t_cmp(heads($o->{h}), heads($f->{h}), "$what: the same headers");
        # (a HEAD's framing may differ: a length, or none)
        ok t_cmp($o->{len}, $f->{len}, "$what: the same length");
        ok t_cmp($o->{body} eq $f->{body} ? 'same' : 'different', 'same', "$what: the same body ($f->{len} bytes)");
    }
}

# One process a CGI on every side: the grapher names its pid on every
# answer; the html CGI's processes are counted (mod_fcgid's under its
# process manager, a child of httpd; ours on the status page).
for my $who (sort keys %port) {
    my %seen = map { ($_ => 1) } @{ $pids{$who}{graph} };
    ok t_cmp(join(',', sort keys %seen), qr/^\d+$/,
             "$who: one munin-cgi-graph process answered all its " . @{ $pids{$who}{graph} } . ' requests');
}
sub children_of { my ($pp) = @_; grep { ((split ' ', (slurp("/proc/$_/stat") =~ s/^.*\)//sr))[1] // 0) == $pp } proc_pids() }
sub proc_pids { opendir my $d, '/proc' or return (); grep { /^\d+$/ } readdir $d }
my $httpd = PrivateHttpd::pid_in("$dir/httpd.pid");
my @html = grep { slurp("/proc/$_/cmdline") =~ /munin-cgi-html/ } map { children_of($_) } children_of($httpd);
ok t_cmp(scalar(@html), 1, 'mod_fcgid: one munin-cgi-html process served the pages');
for my $who (qw(dropin relayed)) {
    my $pool = pool_of("http://127.0.0.1:$port{$who}/status", '/usr/lib/munin/cgi/munin-cgi-html');
    ok t_cmp($pool ? "$pool->{counters}{spawns} spawn, $pool->{counters}{served} served" : 'no pool',
             '1 spawn, ' . scalar(grep { $_->[0] =~ /html/ } @pages) . ' served',
             "$who: one munin-cgi-html worker served the pages");
}

# 12 graphs at once (sizes all different) on each side: mod_fcgid starts
# processes for them, the drop-in queues them on its workers; the same
# answers.
my %burst;
for my $who (sort keys %port) {
    my @kids;
    for my $i (1 .. 12) {
        my $w = 300 + 10 * $i;
        my $pid = open(my $fh, '-|') // die "fork: $!";
        if (!$pid) {
            my ($c, undef, $b) = curl("http://127.0.0.1:$port{$who}/munin-cgi/munin-cgi-graph/test/node1/load-pinpoint=$pin.png?size_x=$w&size_y=200");
            print "$c " . length($b) . ' ' . unpack('%32C*', $b);
            STDOUT->flush;
            POSIX::_exit(0);  # not this test's END blocks
        }
        push @kids, $fh;
    }
    $burst{$who} = join ' | ', map { local $/; my $x = <$_> // ''; close $_; $x } @kids;
}
ok t_cmp($burst{fcgid}, qr/^200 \d+ \d+(?: \| 200 \d+ \d+){11}$/, 'mod_fcgid: 12 graphs at once, all 200');
ok t_cmp("$burst{dropin} || $burst{relayed}", "$burst{fcgid} || $burst{fcgid}",
         'the drop-in, direct and relayed: the same 12 graphs (status, length, checksum)');
