# Debian 12's smokeping CGI (smokeping.cgi: CGI::Fast), unedited, as its
# README.Debian runs it under mod_fcgid (its conf-available/smokeping.conf
# plus <Location /smokeping/smokeping.cgi> SetHandler fcgid-script),
# against mod_cgiplus's fcgid-script drop-in with the mod_fcgid stand-in,
# direct and relayed. The CGI is started, as Debian's own wrapper
# /usr/lib/cgi-bin/smokeping.cgi starts it, by a two-line shell wrapper that
# names the configuration (each side's: its own image cache). The data is
# real: the smokeping daemon's one round (--debug) of fping against
# localhost. Pages compared: the overview, the target's page, its
# navigator with a fixed window, the charts, a POST, HEAD, an unknown target
# (smokeping dies: fatalsToBrowser's page, the process ends, under both),
# the CSS and JS through the package's Alias; status, headers (but the
# date, Server, the framing) and bodies (times and image names aside); then
# the graphs the pages named, and one process answering every side's
# requests but for the die. Last, the one difference, deliberate
# (docs/APPS.md): a changed configuration file, which smokeping answers by
# signalling its own process group.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir libexec);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(pool_of);
use FcgidPeer qw(fcgid_side_load fcgid_procs);

my $debconf = '/etc/apache2/conf-available/smokeping.conf';
sub slurp { open my $fh, '<', $_[0] or return ''; local $/; <$fh> // '' }
my $cgi = '/smokeping/smokeping.cgi';
my @pages = (
    [$cgi],
    ["$cgi?target=Local"],
    ["$cgi?target=Local.LocalMachine"],
    ["$cgi?displaymode=n;start=START;end=END;target=Local.LocalMachine"],
    ["$cgi?target=_charts"],
    ["$cgi?target=_charts.max"],
    [$cgi, '--data', 'target=Local.LocalMachine'],
    ["$cgi?target=Local.LocalMachine", '-I'],
    ['/smokeping/css/smokeping-print.css'],
    ['/smokeping/js/smokeping.js'],
    ["$cgi?target=Local"],
    ["$cgi?target=No.Such"],
    ["$cgi?target=Local"],
);
plan tests => 4 + 4 * 2 * @pages + 2 + 4 + 3,
    need { 'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so',
           'needs smokeping and fping (Debian package smokeping)'
               => (-r $debconf && -x '/usr/share/smokeping/smokeping.cgi' && -x '/usr/sbin/smokeping'
                   && -x '/usr/bin/fping') };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/fcgid_smokeping";
fresh_dir($dir);
my ($gport, $dport, $rport) = free_ports(3);
my @sides = (['fcgid', $gport], ['ours', $dport], ['relayed', $rport]);

# ---- a configuration for each side: Debian's, its paths ours, the probe's
# pings fewer (3, for a round of 3 s)
my $conf = <<"CONF";
*** General ***
owner    = Peter Random
contact  = some\@address.nowhere
mailhost = my.mail.host
cgiurl   = http://127.0.0.1/smokeping/smokeping.cgi
imgcache = $dir/SIDE/img
imgurl   = ../smokeping/images
datadir  = $dir/data
piddir  = $dir/run
smokemail = /etc/smokeping/smokemail
tmail = /etc/smokeping/tmail
dyndir = $dir/dyn
\@include /etc/smokeping/config.d/Alerts
*** Database ***
step     = 300
pings    = 3
AVERAGE  0.5   1  1008
AVERAGE  0.5  12  4320
    MIN  0.5  12  4320
    MAX  0.5  12  4320
AVERAGE  0.5 144   720
    MAX  0.5 144   720
    MIN  0.5 144   720
\@include /etc/smokeping/config.d/Presentation
\@include /etc/smokeping/config.d/Probes
\@include /etc/smokeping/config.d/Slaves
\@include /etc/smokeping/config.d/Targets
CONF
mkdir "$dir/$_" for qw(data run dyn);
chmod 0777, "$dir/dyn";
for my $s (@sides) {
    my $side = $s->[0];
    mkdir "$dir/$side";
    mkdir "$dir/$side/img";
    chmod 0777, "$dir/$side/img";
    write_file("$dir/$side/config", $conf =~ s/SIDE/$side/r, 0644);
    # Debian's /usr/lib/cgi-bin/smokeping.cgi, the configuration ours
    write_file("$dir/$side/smokeping.cgi", "#!/bin/sh\n\nexec /usr/share/smokeping/smokeping.cgi $dir/$side/config\n", 0755);
}

# ---- the data: one round of the daemon
system("/usr/sbin/smokeping --config=$dir/fcgid/config --debug >$dir/smokeping.out 2>&1");
my $rrd = "$dir/data/Local/LocalMachine.rrd";
ok t_cmp("$? " . (-s $rrd ? 'rrd' : 'none'), '0 rrd', "the smokeping daemon's one round made the target's data");
chmod 0755, "$dir/data", "$dir/data/Local";
my $last = (stat $rrd)[9];

# ---- Debian's smokeping.conf, the wrapper ours, README.Debian's Location,
# the images from the side's cache
my %httpd;
for my $s (@sides) {
    my ($side, $port) = @$s;
    my $deb = slurp($debconf) =~ s{/usr/lib/cgi-bin/smokeping.cgi}{$dir/$side/smokeping.cgi}r;
    my $load = fcgid_side_load($side, "$dir/fcgid");
    write_file("$dir/$side.conf", private_conf("$dir/$side", $port, [qw(alias mime dir authz_host)], <<"CONF"), 0644);
TypesConfig /etc/mime.types
$load
Alias /smokeping/images $dir/$side/img
<Directory $dir/$side/img>
    Require all granted
</Directory>
$deb
<Location /smokeping/smokeping.cgi>
        SetHandler fcgid-script
</Location>
CONF
    ok t_cmp(private_start("$dir/$side.conf", $port), 1, "$side: a private httpd");
    $httpd{$side} = "$dir/$side/httpd.pid";
}
END { private_stop($_) for values %httpd }

# What may differ: the date, Server, the framing.
sub heads {
    my ($h) = @_;
    my @k = grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive)$/ } keys %$h;
    return join "\n", map { "$_: " . (/^(expires|last-modified)$/ ? 'TIME' : $h->{$_}) } sort @k;
}
# The clock (in titles and the generation time), the navigator graph's
# name (the time and the process's pid), the charts' order (a hash's)
sub norm {
    my ($b, $side) = @_;
    $b =~ s{/\Q$dir\E/$side/}{/DIR/SIDE/}g;
    $b =~ s/\b(?:Sun|Mon|Tue|Wed|Thu|Fri|Sat) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d+ \d\d:\d\d:\d\d \d{4}\b/TIME/g;
    $b =~ s/\b\d{4}-\d\d-\d\d \d\d:\d\d(?::\d\d)?\b/TIME/g;
    $b =~ s/\b1[6-9]\d{8}\b/EPOCH/g;
    $b =~ s{__navcache/\d+_}{__navcache/TIMEPID_}g;
    # the charts' sections in a Perl hash's order, the process's own
    my @panels;
    $b =~ s{(<div class="panel"><div class="panel-heading">.*?</div>\n<div class="panel-body">.*?</div></div>)}
           {push @panels, $1; 'PANEL'}gse if $b =~ /most interesting destinations/;
    $b .= join "\n", '', sort @panels;
    return $b;
}

my (%n, @imgs);
my ($start, $end) = ($last - 3600, $last + 600);
for my $page (@pages) {
    my ($path, @args) = @$page;
    $path =~ s/START/$start/;
    $path =~ s/END/$end/;
    my %r;
    my $fetch = sub {
        my ($side, $port) = @_;
        my ($code, $h, $body) = curl(@args, "http://127.0.0.1:$port$path");
        write_file("$dir/body-$side-" . ++$n{$side}, $body, 0644);  # for a failing run's reader
        $body = '' if grep { $_ eq '-I' } @args;
        my $nbody = norm($body, $side);
        $r{$side} = { code => $code, h => $h, body => $nbody, len => length $nbody };
        push @imgs, [$side, $port, $1] while $side ne 'fcgid' && $body =~ m{<img [^>]*src="\.\./smokeping/images/([^"]+\.png)"}gi;
        (my $show = substr($body, 0, 200)) =~ s/\s+/ /g;
        t_debug("$side $path @args: $code " . heads($h) . ', ' . length($body) . " bytes: $show");
    };
    $fetch->(@$_) for @sides;
    # mod_fcgid's answer is the reference: where it failed (5xx) and ours
    # did not, it is asked again, twice at most (on a loaded machine
    # mod_fcgid gave the request after No.Such to the smokeping.cgi that
    # had just died of it: "End of script output")
    for (1 .. 2) {
        last unless ($r{fcgid}{code} // "") =~ /^5/ && grep { ($r{$_}{code} // "") !~ /^5/ } qw(ours relayed);
        $fetch->(@{ $sides[0] });
    }
    for my $side (qw(ours relayed)) {
        my ($o, $f) = ($r{$side}, $r{fcgid});
        my $what = "$side vs mod_fcgid: $path @args";
        ok t_cmp($o->{code}, $f->{code} || 'an answer from mod_fcgid', "$what: the same status");
        ok t_cmp(heads($o->{h}), heads($f->{h}), "$what: the same headers");
        ok t_cmp($o->{len}, $f->{len}, "$what: the same length");
        ok t_cmp($o->{body} eq $f->{body} ? 'same' : 'different', 'same', "$what: the same body ($f->{len} bytes)");
    }
}

# The graphs the pages named were drawn, and are served.
my @bad = grep { my ($c, $h) = curl("http://127.0.0.1:$_->[1]/smokeping/images/$_->[2]");
                 $c != 200 || ($h->{'content-type'} // '') ne 'image/png' } @imgs;
ok t_cmp(scalar(@imgs) >= 4 ? scalar(@bad) : 'fewer than 4 graphs named', 0,
         'the graphs the pages named were drawn by the CGI (' . scalar(@imgs) . ')');
my ($c, undef, $b) = curl("http://127.0.0.1:$gport$cgi?target=Local.LocalMachine");
ok t_cmp("$c " . ($b =~ /This host/ ? 'page' : 'other'), '200 page', "the target's page is smokeping's");

# Persistence: one process before the die, one after (the die ends it,
# under both). mod_fcgid's are counted under its process manager; ours on
# the status page.
my @procs = fcgid_procs($httpd{fcgid}, qr/smokeping\.cgi/);
ok t_cmp(scalar(@procs), 1, 'mod_fcgid: one smokeping process serves after the die');
my $log = slurp("$dir/fcgid/error_log");
my @started = $log =~ /mod_fcgid: server \S+smokeping\.cgi\(\d+\) started/g;
ok t_cmp(scalar(@started), 2, 'mod_fcgid: two processes in all (one before the die, one after)');
my $served = grep { $_->[0] =~ /smokeping\.cgi/ } @pages;
for my $s (@sides[1, 2]) {
    my ($side, $port) = @$s;
    my $pool = pool_of("http://127.0.0.1:$port/status", "$dir/$side/smokeping.cgi");
    ok t_cmp($pool ? "$pool->{counters}{spawns} spawns, $pool->{counters}{served} served" : 'no pool',
             "2 spawns, $served served", "$side: one worker before the die, one after, all served");
}

# docs/APPS.md: a changed configuration file. smokeping's cgi() ends its
# process once the file is newer than what it loaded ("kill -9, $$": a
# negative signal, so the process group $$). Under mod_fcgid the process is
# in httpd's group, there is no group $$, and it serves on with what it
# loaded; a worker of ours leads its own group (its children are stopped
# with it), so it dies there as smokeping means, before its buffered page
# went out: that request is 500, the next is a new process with the new
# file.
for my $s (@sides) {
    my $f = "$dir/$s->[0]/config";
    write_file($f, slurp($f) =~ s/Peter Random/Paula Changed/r, 0644);
    utime time + 2, time + 2, $f;
}
my %got;
for my $i (1, 2) {
    for my $s (@sides) {
        my ($c, undef, $b) = curl("http://127.0.0.1:$s->[1]$cgi?target=Local");
        $got{$s->[0]} .= ($i > 1 ? ', ' : '') . $c . ($c == 200 ? ($b =~ /Paula Changed/ ? ' new' : ' old') : '');
    }
}
ok t_cmp($got{fcgid}, '200 old, 200 old', 'mod_fcgid: after the file changed, the process serves on with what it loaded');
ok t_cmp("$got{ours} | $got{relayed}", '500, 200 new | 500, 200 new',
         'the drop-in: the request that finds the file changed is 500 (smokeping kills its process group), the next runs the new file');
ok t_cmp(slurp("$dir/ours/error_log") =~ /CGIPLUS1064: .*killed by signal 9/ ? 1 : 0, 1,
         'and the log says why (1064: killed by signal 9 before its headers)');
