# The UPS monitors' CGIs of Debian (C programs), unmodified, in two
# virtual hosts of one private httpd, one with mod_cgid, one with
# CGIplusCompat (plain CGI through the runner), as Debian installs them
# (/usr/lib/cgi-bin/nut, /usr/lib/cgi-bin/apcupsd): NUT's upsstats.cgi,
# upsset.cgi (its login form and its POSTs) and upsimage.cgi (PNG), and
# apcupsd's multimon.cgi, upsstats.cgi, upsfstats.cgi and upsimage.cgi
# (PNG), with query strings, HEAD and POST. Each the same status,
# Content-Type, headers (but the date, Server and the framing) and body,
# bytes (but the clock's). No UPS daemon runs: NUT's hosts.conf
# (NUT_CONFPATH, by SetEnv, a private one) names two UPSes at ports
# nothing listens on, apcupsd's (/etc/apcupsd, compiled in) the one at
# 127.0.0.1:3551 (install-deps starts no apcupsd); their pages show the
# failed connection, upsimage.cgi draws what its query says.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use POSIX qw(strftime);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_start private_stop private_dir);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(same_answer pool_of cgid_pair_conf);

my %cgidir = (nut => '/usr/lib/cgi-bin/nut', apcupsd => '/usr/lib/cgi-bin/apcupsd');
my ($cport, $pport, $ups1, $ups2) = free_ports(4);
my %port = (ref => $cport, ours => $pport);
my $form = 'username=admin&password=secret';
# [page under /cgi-bin/, curl arguments]
my @pages = (
    ['nut/upsstats.cgi'],                   # the overview: /etc/nut's empty hosts.conf
    ["nut/upsstats.cgi?host=ups1\@127.0.0.1:$ups1"],
    ["nut/upsstats.cgi?host=ups1\@127.0.0.1:$ups1&treemode"],
    ["nut/upsstats.cgi?host=ups2\@localhost:$ups2&refresh=30"],
    ['nut/upsstats.cgi?host=evil@192.0.2.1'],
    ["nut/upsstats.cgi?host=ups1%40127.0.0.1%3A$ups1"],
    ["nut/upsstats.cgi?host=ups1\@127.0.0.1:$ups1", '-I'],
    ['nut/upsset.cgi'],
    ['nut/upsset.cgi', '--data', "$form&function=pickups"],
    ['nut/upsset.cgi', '--data', "$form&function=showsettings&monups=ups1\@127.0.0.1:$ups1"],
    ['nut/upsset.cgi', '--data', "$form&function=showcmds&monups=ups2\@localhost:$ups2"],
    ['nut/upsset.cgi', '--data', "$form&function=savesettings&monups=ups1\@127.0.0.1:$ups1&UPS_ups.delay.shutdown=30"],
    ['nut/upsset.cgi', '--data', "$form&function=docmd&monups=ups1\@127.0.0.1:$ups1&upscommand=test.battery.start"],
    ['nut/upsset.cgi', '--data', "$form&function=showsettings&monups=evil\@192.0.2.1"],
    ["nut/upsset.cgi?function=pickups&$form"],
    # long bodies: upsset reads them to the end and puts the fields back in
    # its form, cut to its buffer's size (one cut in the middle of an
    # escape: "bad escape char", the headers only)
    ['nut/upsset.cgi', '--data', "$form&function=pickups&username=" . ('x' x 30000)],
    ['nut/upsset.cgi', '--data', 'username=' . ('%3Cb%3E%26' x 3000) . '&password=p%20w&function=pickups'],
    ['nut/upsset.cgi', '-H', 'Transfer-Encoding: chunked', '--data', "$form&function=pickups"],
    ['nut/upsset.cgi', '-I'],
    ['nut/upsimage.cgi'],
    ["nut/upsimage.cgi?host=ups1\@127.0.0.1:$ups1&display=battery.charge"],
    ["nut/upsimage.cgi?host=ups1\@127.0.0.1:$ups1&display=ups.load"],
    ['nut/upsimage.cgi?host=evil@192.0.2.1&display=battery.charge'],
    ["nut/upsimage.cgi?host=ups1\@127.0.0.1:$ups1&display=battery.charge", '-I'],
    ['apcupsd/multimon.cgi'],
    ['apcupsd/upsstats.cgi'],
    ['apcupsd/upsstats.cgi?host=127.0.0.1&temp=F&graph=3'],
    ['apcupsd/upsstats.cgi?host=192.0.2.1'],
    ['apcupsd/upsfstats.cgi?host=127.0.0.1'],
    ['apcupsd/upsfstats.cgi?host=192.0.2.1'],
    ['apcupsd/upsfstats.cgi?host=127.0.0.1', '-I'],
    ['apcupsd/upsimage.cgi'],
    ['apcupsd/upsimage.cgi?display=battcap&value=80&value2=20'],
    ['apcupsd/upsimage.cgi?display=battvolt&value=27.1&value2=24'],
    ['apcupsd/upsimage.cgi?display=utility&value=231&value2=196&value3=253'],
    ['apcupsd/upsimage.cgi?display=outputv&value=229'],
    ['apcupsd/upsimage.cgi?display=upsload&value=45.5'],
    ['apcupsd/upsimage.cgi?display=runtime&value=32&value2=5'],
    ['apcupsd/upsimage.cgi?display=nosuch&value=1'],
    ['apcupsd/upsimage.cgi?display=upsload&value=45.5', '-I'],
);
my @scripts = qw(nut/upsstats nut/upsset nut/upsimage apcupsd/multimon apcupsd/upsstats
                 apcupsd/upsfstats apcupsd/upsimage);
plan tests => 1 + 5 * @pages + @scripts,
    need { 'needs the UPS CGIs (Debian packages nut-cgi, apcupsd-cgi)'
           => -x "$cgidir{nut}/upsset.cgi" && -x "$cgidir{apcupsd}/multimon.cgi" };

my $dir = private_dir('ups');
# NUT's configuration (NUT_CONFPATH): the UPSes upsstats and upsset may
# show, a description HTML must escape; upsset's consent; the templates.
write_file("$dir/hosts.conf", "MONITOR ups1\@127.0.0.1:$ups1 \"Rack <one> & its UPS\"\n"
                              . "MONITOR ups2\@localhost:$ups2 \"Spare\"\n", 0644);
write_file("$dir/upsset.conf", "I_HAVE_SECURED_MY_CGI_DIRECTORY\n", 0644);
for my $t (qw(upsstats.html upsstats-single.html)) {
    write_file("$dir/$t", do { local (@ARGV, $/) = "/etc/nut/$t"; <> }, 0644);
}

sub vhost {
    return <<"CONF";
    SetEnv NUT_CONFPATH $dir
    ScriptAlias /cgi-bin/nut $cgidir{nut}
    ScriptAlias /cgi-bin/apcupsd $cgidir{apcupsd}
CONF
}
write_file("$dir/httpd.conf", cgid_pair_conf($dir, \%port, mods => ['env'], grant => [values %cgidir],
                                              compat => ['/cgi-bin'], vhost => \&vhost), 0644);
ok t_cmp(private_start("$dir/httpd.conf", $cport), 1, 'httpd with mod_cgid and the drop-in, the UPS CGIs in both');

# What differs between two servers or two moments: the port, and the
# clock's (NUT's upsstats single page and apcupsd's multimon say when they
# were made, to the second: "Mon Dec 07 06:18:28 UTC 2026").
my @today = map { strftime('%a %b %d', localtime(time + $_)) } 0, 60;
sub norm {
    my ($b, $port) = @_;
    $b =~ s/127\.0\.0\.1:$port\b/127.0.0.1:PORT/g;
    $b =~ s/\b(?:\Q$today[0]\E|\Q$today[1]\E) \d\d:\d\d:\d\d \w+ \d{4}\b/NOW/g;
    return $b;
}
# The headers that matter: all but the date, Server and the framing.
sub heads {
    my ($h) = @_;
    return join "\n", map { "$_: $h->{$_}" }
                      sort grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive)$/ } keys %$h;
}

my $n = 0;
for my $page (@pages) {
    my ($path, @args) = @$page;
    $n++;
    my %r;
    for my $side (qw(ref ours)) {
        my ($code, $h, $body) = curl(@args, "http://127.0.0.1:$port{$side}/cgi-bin/$path");
        $body = '' if grep { $_ eq '-I' } @args;
        write_file("$dir/body-$side-$n", $body, 0644);    # for a failing run's reader
        $r{$side} = { code => $code, type => $h->{'content-type'} // '', loc => $h->{location} // '',
                      body => $body, nbody => norm($body, $port{$side}), h => $h };
    }
    my ($data) = map { $args[$_ + 1] } grep { $args[$_] eq '--data' } 0 .. $#args;
    $data = substr($data, 0, 60) . '... (' . length($data) . ' bytes)' if $data && length $data > 100;
    my $what = (grep({ $_ eq '-I' } @args) ? 'HEAD ' : $data ? "POST $data " : '')
               . (grep({ /chunked/ } @args) ? 'chunked ' : '') . $path;
    same_answer($what, 'mod_cgiplus', $r{ours}, $r{ref}, 'mod_cgid');
    ok t_cmp(heads($r{ours}{h}), heads($r{ref}{h}), "$what: the same other headers");
}

for my $s (@scripts) {
    my ($app, $name) = split m{/}, $s;
    my $pool = pool_of("http://127.0.0.1:$pport/status", "$cgidir{$app}/$name.cgi");
    my $want = grep { $_->[0] =~ m{^\Q$s\E\.cgi\b} } @pages;
    ok t_cmp($pool ? "$pool->{mode} " . ($pool->{counters}{requests} >= $want ? 'all' : $pool->{counters}{requests})
                   : 'no pool', 'cgi all', "the drop-in's $s.cgi requests ($want) ran through the runner, as plain CGI");
}
private_stop("$dir/httpd.pid");
