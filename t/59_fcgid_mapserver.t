# Debian 12's MapServer CGI (cgi-mapserver: /usr/lib/cgi-bin/mapserv, C,
# linked with libfcgi), unedited, side by side: as plain CGI, mod_cgid
# against CGIplusCompat (one httpd, a virtual host each); as a FastCGI
# responder, mod_fcgid against the fcgid-script drop-in (the mod_fcgid
# stand-in), direct and relayed (an httpd each). Its data is inline (a
# mapfile of FEATURE blocks, no files of shapes), its MapServer 8 CONFIG
# file private (MAPSERVER_CONFIG_FILE: an alias for the mapfile,
# MS_MAP_PATTERN for it by path). Requests: map images and a legend
# (PNG), queries answered through templates, WMS capabilities, GetMap and
# an exception, mapserv's error pages (a bad mode, a value its VALIDATION
# refuses, a mapfile outside the pattern), an empty result, HEAD, POSTs.
# Each the same status, Content-Type, headers (but the date, Server, the
# framing) and body bytes (the port in WMS's URLs aside; the PNGs byte for
# byte, and their size read from the IHDR chunk); under FastCGI one
# mapserv process answers all of a side's requests.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir libexec);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(same_answer pool_of cgid_pair_conf);
use FcgidPeer qw(fcgid_side_load fcgid_procs);

my $mapserv = '/usr/lib/cgi-bin/mapserv';
my $font = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
sub slurp { open my $fh, '<', $_[0] or return ''; local $/; <$fh> // '' }

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/fcgid_mapserver";
my $map = "$dir/data/test.map";
my $wms = 'map=TEST&SERVICE=WMS&VERSION=1.1.1';
# [request, curl arguments, what mapserv's answer is: 'png WxH' (the
# image's size), 'head TYPE' (200, that type) or a pattern of its body]
my @reqs = (
    ['?map=TEST&mode=map&layers=all', [], 'png 200x150'],
    ["?map=$map&mode=map&layers=all&mapext=0+0+50+50&mapsize=300+200", [], 'png 300x200'],
    ['?map=TEST&mode=map&map_imagetype=png', [], 'png 200x150'],    # parks alone (STATUS DEFAULT)
    ['?map=TEST&mode=legend&layers=all', [], 'png 63x39'],    # two classes, their names in DejaVu Sans
    ['?map=TEST&mode=nquery&qlayer=parks&mapext=0+0+100+100', [], qr{<td>Central</td><td>0</td></tr>\n<tr><td>North</td><td>1</td>}],
    ['?map=TEST&mode=itemnquery&qlayer=parks&qitem=name&qstring=North', [], qr{<td>North</td><td>1</td>}],
    ["?$wms&REQUEST=GetCapabilities", [], qr{<Layer queryable="1"[^>]*>\s*<Name>parks</Name>}],
    ["?$wms&REQUEST=GetMap&LAYERS=parks,wells&STYLES=&SRS=EPSG:3857&BBOX=0,0,100,100&WIDTH=120&HEIGHT=80&FORMAT=image/png",
     [], 'png 120x80'],
    ["?$wms&REQUEST=GetMap&LAYERS=nosuch&STYLES=&SRS=EPSG:3857&BBOX=0,0,100,100&WIDTH=120&HEIGHT=80&FORMAT=image/png",
     [], qr{<ServiceException code="LayerNotDefined">}],
    # nothing found: mapserv's empty page (no EMPTY in the mapfile)
    ['?map=TEST&mode=itemnquery&qlayer=parks&qitem=name&qstring=Nowhere', [], qr{^$}],
    # mapserv's own error page: a bad mode, a value its VALIDATION
    # refuses, a mapfile the pattern refuses
    ['?map=TEST&mode=nosuch', [], qr{MapServer Message.*Invalid mode}s],
    ['?map=TEST&mode=itemnquery&qlayer=parks&qitem=name&qstring=No%3Cb%3E', [], qr{MapServer Message.*fails to validate}s],
    ['?map=/etc/passwd&mode=map', [], qr{MapServer Message.*msCGILoadMap\(\)}s],
    # HEAD: mapserv takes GET and POST only (loadParams()): its error page,
    # whose headers alone go out
    ['?map=TEST&mode=map&layers=all', ['-I'], 'head text/html'],
    ['', ['--data', 'map=TEST&mode=itemnquery&qlayer=parks&qitem=name&qstring=Central'], qr{<table>\n<tr><td>Central</td><td>0</td></tr>\n</table>}],
    ['', ['--data', 'map=TEST&mode=map&layers=all&mapsize=100+80'], 'png 100x80'],
    ['?map=TEST&mode=map&layers=all', [], 'png 200x150'],
);
plan tests => 1 + 6 * @reqs + 1 + 3 + 11 * @reqs + 2 + 2,
    need { 'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so',
           'needs MapServer (Debian package cgi-mapserver) and fonts-dejavu-core'
               => (-x $mapserv && -r $font) };

fresh_dir($dir);
mkdir "$dir/$_" for qw(data cgi fcgid ours relayed);
chmod 0755, "$dir/data";
my ($cport, $pport, $gport, $dport, $rport) = free_ports(5);

# ---- MapServer 8's configuration (mapserv refuses to run without one),
# the mapfile (two layers of inline features), its templates and fontset
write_file("$dir/data/mapserver.conf", <<"CONF", 0644);
CONFIG
  ENV
    MS_MAP_PATTERN "^$dir/data/"
  END
  MAPS
    TEST "$map"
  END
END
CONF
write_file("$dir/data/fonts.txt", "sans $font\n", 0644);
write_file($map, <<"MAPFILE", 0644);
MAP
  NAME "cgiplus"
  EXTENT 0 0 100 100
  SIZE 200 150
  IMAGECOLOR 255 255 255
  IMAGETYPE png
  UNITS meters
  FONTSET "$dir/data/fonts.txt"
  PROJECTION
    "init=epsg:3857"
  END
  WEB
    METADATA
      "wms_title" "cgiplus"
      "wms_srs" "EPSG:3857"
      "ows_enable_request" "*"
    END
  END
  SYMBOL
    NAME "circle"
    TYPE ellipse
    FILLED true
    POINTS 1 1 END
  END
  LEGEND
    STATUS ON
    KEYSIZE 18 12
    LABEL
      TYPE truetype
      FONT "sans"
      SIZE 8
      COLOR 0 0 0
    END
  END
  LAYER
    NAME "parks"
    TYPE POLYGON
    STATUS DEFAULT
    TEMPLATE "$dir/data/park.html"
    HEADER "$dir/data/head.html"
    FOOTER "$dir/data/foot.html"
    PROCESSING "ITEMS=name"
    VALIDATION
      "qstring" "^[A-Za-z]+\$"
    END
    METADATA
      "wms_title" "Parks"
      "wms_include_items" "all"
    END
    FEATURE
      POINTS 10 10 40 10 40 40 10 40 10 10 END
      ITEMS "Central"
    END
    FEATURE
      POINTS 60 60 90 60 90 90 60 90 60 60 END
      ITEMS "North"
    END
    CLASS
      NAME "Parks"
      STYLE
        COLOR 0 160 0
        OUTLINECOLOR 0 0 0
      END
    END
  END
  LAYER
    NAME "wells"
    TYPE POINT
    STATUS ON
    METADATA
      "wms_title" "Wells"
    END
    FEATURE
      POINTS 50 50 END
    END
    CLASS
      NAME "Wells"
      STYLE
        SYMBOL "circle"
        COLOR 0 0 255
        SIZE 8
      END
    END
  END
END
MAPFILE
write_file("$dir/data/head.html", "<!-- MapServer Template -->\n<table>\n", 0644);
write_file("$dir/data/park.html", "<!-- MapServer Template -->\n<tr><td>[name]</td><td>[shpidx]</td></tr>\n", 0644);
write_file("$dir/data/foot.html", "<!-- MapServer Template -->\n</table>\n", 0644);

my %httpd;
END { private_stop($_) for values %httpd }

# ---- plain CGI: mod_cgid and CGIplusCompat, the configuration by SetEnv
my %cport = (ref => $cport, ours => $pport);
my $alias = "ScriptAlias /cgi-bin/mapserv $mapserv\n";
my $env = "SetEnv MAPSERVER_CONFIG_FILE $dir/data/mapserver.conf\n";
write_file("$dir/cgi/httpd.conf", cgid_pair_conf("$dir/cgi", \%cport, mods => ['env'], grant => ['/usr/lib/cgi-bin'],
                                                   compat => ['/cgi-bin'], vhost => sub { "    $alias    $env" }), 0644);
ok t_cmp(private_start("$dir/cgi/httpd.conf", $cport), 1, 'httpd with mod_cgid and CGIplusCompat, mapserv in both');
$httpd{cgi} = "$dir/cgi/httpd.pid";

# ---- FastCGI: mod_fcgid, the drop-in direct and relayed. mapserv reads
# its configuration before its FastCGI loop: from its process's
# environment, so FcgidInitialEnv (SetEnv reaches only the requests).
my @fsides = (['fcgid', $gport], ['ours', $dport], ['relayed', $rport]);
for my $s (@fsides) {
    my ($side, $port) = @$s;
    my $load = fcgid_side_load($side, "$dir/fcgid");
    write_file("$dir/$side/httpd.conf", private_conf("$dir/$side", $port, [qw(alias env)], <<"CONF"), 0644);
$load
FcgidInitialEnv MAPSERVER_CONFIG_FILE $dir/data/mapserver.conf
$alias$env<Directory /usr/lib/cgi-bin>
    Require all granted
</Directory>
<Location /cgi-bin/mapserv>
    SetHandler fcgid-script
</Location>
CONF
    ok t_cmp(private_start("$dir/$side/httpd.conf", $port), 1, "$side: a private httpd, mapserv as fcgid-script");
    $httpd{$side} = "$dir/$side/httpd.pid";
}

# The headers that matter: all but the date, Server and the framing.
sub heads {
    my ($h) = @_;
    return join "\n", map { "$_: $h->{$_}" }
                      sort grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive)$/ } keys %$h;
}
# A PNG's size from its IHDR chunk (the first, by the format), or what
# the body is instead.
sub png_size {
    my ($b) = @_;
    return 'not a PNG: ' . substr($b, 0, 60) =~ s/[^ -~]/./gr
        unless $b =~ /\A\x89PNG\r\n\x1a\n....IHDR/s;
    my ($w, $h) = unpack 'NN', substr($b, 16, 8);
    return "png ${w}x$h";
}

my $n = 0;
sub fetch {
    my ($side, $port, $req) = @_;
    my ($q, $args) = @$req;
    my ($code, $h, $body) = curl(@$args, "http://127.0.0.1:$port/cgi-bin/mapserv$q");
    $body = '' if grep { $_ eq '-I' } @$args;
    write_file("$dir/body-$side-$n", $body, 0644);    # for a failing run's reader
    return { code => $code, type => $h->{'content-type'} // '', loc => $h->{location} // '', h => $h,
             body => $body, nbody => $body =~ s/127\.0\.0\.1:$port\b/127.0.0.1:PORT/gr };
}
sub what {
    my ($req) = @_;
    my ($q, $args) = @$req;
    return (grep({ $_ eq '-I' } @$args) ? 'HEAD ' : @$args ? "POST $args->[1] " : 'GET ') . "mapserv$q";
}
# The reference answered as mapserv does: the image's size, or its page.
sub is_mapserv {
    my ($r, $want, $what) = @_;
    if (ref $want) {
        ok t_cmp($r->{body} =~ $want ? 'yes' : substr($r->{body}, 0, 300), 'yes', "$what: mapserv's answer ($want)");
    } elsif ($want =~ /^head (.*)/) {
        ok t_cmp("$r->{code} $r->{type}", "200 $1", "$what: mapserv's status and type, no body");
    } else {
        ok t_cmp(png_size($r->{body}) . " $r->{type}", "$want image/png", "$what: mapserv's image");
    }
}

for my $req (@reqs) {
    $n++;
    my $what = what($req);
    my $ref = fetch('cgid', $cport, $req);
    my $got = fetch('compat', $pport, $req);
    is_mapserv($ref, $req->[2], "mod_cgid: $what");
    same_answer("CGIplusCompat: $what", 'mod_cgiplus', $got, $ref, 'mod_cgid');
    ok t_cmp(heads($got->{h}), heads($ref->{h}), "CGIplusCompat: $what: the same other headers");
}
my $pool = pool_of("http://127.0.0.1:$pport/status", $mapserv);
ok t_cmp($pool ? "$pool->{mode} " . ($pool->{counters}{requests} >= @reqs ? 'all' : $pool->{counters}{requests})
               : 'no pool', 'cgi all', 'the CGIplusCompat requests (' . @reqs . ') ran through the runner, as plain CGI');

for my $req (@reqs) {
    $n++;
    my $what = what($req);
    my %r = map { ($_->[0] => fetch(@$_, $req)) } @fsides;
    is_mapserv($r{fcgid}, $req->[2], "mod_fcgid: $what");
    for my $side (qw(ours relayed)) {
        same_answer("$side: $what", $side, $r{$side}, $r{fcgid}, 'mod_fcgid');
        ok t_cmp(heads($r{$side}{h}), heads($r{fcgid}{h}), "$side: $what: the same other headers");
    }
}

# Persistence: one mapserv process answered each side's requests, its
# errors included (mapserv writes its error page and waits for the next).
my @procs = fcgid_procs($httpd{fcgid}, qr/mapserv/);
my @started = slurp("$dir/fcgid/error_log") =~ /mod_fcgid: server \S*mapserv\(\d+\) started/g;
ok t_cmp(scalar(@procs) . ' running, ' . scalar(@started) . ' started', '1 running, 1 started',
         'mod_fcgid: one mapserv process answered every request');
ok t_cmp(scalar(@procs) && (slurp("/proc/$procs[0]/cmdline") =~ /mapserv/) ? 'mapserv' : 'none', 'mapserv',
         "mod_fcgid: that process is mapserv's");
for my $s (@fsides[1, 2]) {
    my ($side, $port) = @$s;
    my $p = pool_of("http://127.0.0.1:$port/status", $mapserv);
    ok t_cmp($p ? "$p->{counters}{spawns} spawn, $p->{counters}{served} served" : 'no pool',
             '1 spawn, ' . scalar(@reqs) . ' served', "$side: one mapserv worker answered every request");
}
