# A big response header block in every kind, against the peers (session
# 37). httpd's scanner bounds each header line (8 KiB) but not the block:
# mod_cgid, mod_fcgid and php-fpm pass 200 headers of 2 KiB (a big
# Content-Security-Policy or Set-Cookie set; 4 MB pass too). With
# CGIplusMaxHeaderSize's old default (64 KiB) every mod_cgiplus kind
# answered 500 or 502. The default is now 1 MiB: the same block passes in
# every kind, direct and relayed (through the runner's header scan, which
# looks for Script-Control up to 1 MiB: t/48_script_control_big.t), and a script that sends
# header lines without end is still stopped (502 native, 500 in a drop-in
# scope), logged (CGIPLUS1076), the next request served.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_log);
use KindsHttpd qw(kinds_need kinds_fpm_bin kinds_dir kinds_start kinds_stop);
use AppTest qw(write_file);
use RawHTTP qw(raw_request);

my ($N, $LEN) = (200, 2048);

my @kinds = (
    ['/cgid/big.pl',        'mod_cgid (the reference)'],
    ['/fpm/big.php',        'php-fpm (the reference)'],
    ['/compat/big.pl',      'CGIplusCompat, plain CGI'],
    ['/compatp/biglib.pl',  'CGIplusCompat, persistent'],
    ['/compatpr/biglib.pl', 'CGIplusCompat, persistent, relayed'],
    ['/eperl/big.pl',       'perl engine'],
    ['/eperlr/big.pl',      'perl engine, relayed'],
    ['/epy/big.py',         'python engine'],
    ['/epyr/big.py',        'python engine, relayed'],
    ['/php/big.php',        'CGIplusEngine php'],
    ['/phpr/big.php',       'CGIplusEngine php, relayed'],
    ['/native/biglib.pl',   'native CGIplus script'],
    ['/nativer/biglib.pl',  'native CGIplus script, relayed'],
    ['/fcgi/bigfcgi.pl',    'CGIplusMode fastcgi'],
    ['/fcgir/bigfcgi.pl',   'CGIplusMode fastcgi, relayed'],
    ['/fcgid/bigfcgi.pl',   'fcgid-script drop-in'],
);
my @endless = (['/native/endlesslib.pl', 502], ['/nativer/endlesslib.pl', 502],
               ['/compat/endless.pl', 500]);

plan tests => 3 + 3 * @kinds + 4 * @endless,
    need kinds_need();

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my ($dir, $d, $port) = kinds_dir('bighdr');

# $N headers X-Big-NNN of $LEN bytes each (name, value and CRLF), then "ok".
my $vlen = $LEN - length("X-Big-000: \r\n");
write_file("$d/big.pl", <<"PL", 0755);
#!/usr/bin/perl
print "Content-Type: text/plain\\r\\n";
printf "X-Big-%03d: %s\\r\\n", \$_, 'x' x $vlen for 1 .. $N;
print "\\r\\nok\\n";
PL
write_file("$d/big.py", <<"PY", 0755);
#!/usr/bin/python3
import sys
out = "Content-Type: text/plain\\r\\n"
out += "".join("X-Big-%03d: %s\\r\\n" % (i, "x" * $vlen) for i in range(1, $N + 1))
sys.stdout.write(out + "\\r\\nok\\n")
PY
write_file("$d/big.php", <<"PHP", 0644);
<?php
header('Content-Type: text/plain');
for (\$i = 1; \$i <= $N; \$i++)
    header(sprintf('X-Big-%03d: %s', \$i, str_repeat('x', $vlen)));
echo "ok\\n";
PHP
write_file("$d/biglib.pl", <<"PL", 0755);
#!/usr/bin/perl
use lib '$top/lib/perl';
use CGIplus;
while (CGIplus::accept()) {
    print "Content-Type: text/plain\\r\\n";
    printf "X-Big-%03d: %s\\r\\n", \$_, 'x' x $vlen for 1 .. $N;
    print "\\r\\nok\\n";
    CGIplus::finish();
}
PL
write_file("$d/bigfcgi.pl", <<"PL", 0755);
#!/usr/bin/perl
use FCGI;
my \$req = FCGI::Request();
while (\$req->Accept() >= 0) {
    print "Content-Type: text/plain\\r\\n";
    printf "X-Big-%03d: %s\\r\\n", \$_, 'x' x $vlen for 1 .. $N;
    print "\\r\\nok\\n";
}
PL
# Header lines without end: the bound must stop them. A query string
# other than "loop" answers a small page (the scope works on).
write_file("$d/endless.pl", <<'PL', 0755);
#!/usr/bin/perl
$| = 0;
print "Content-Type: text/plain\n\nsmall\n" and exit if ($ENV{QUERY_STRING} // '') ne 'loop';
print "Content-Type: text/plain\n";
for (my $i = 0; ; $i++) { print "X-Endless-$i: ", 'y' x 1000, "\n" or exit }
PL
write_file("$d/endlesslib.pl", <<"PL", 0755);
#!/usr/bin/perl
use lib '$top/lib/perl';
use CGIplus;
while (CGIplus::accept()) {
    if ((\$ENV{QUERY_STRING} // '') ne 'loop') {
        print "Content-Type: text/plain\\n\\nsmall\\n";
    } else {
        print "Content-Type: text/plain\\n";
        for (my \$i = 0; ; \$i++) { print "X-Endless-\$i: ", 'y' x 1000, "\\n" or exit }
    }
    CGIplus::finish();
}
PL

my ($fpm, $fpm_up, $up) = kinds_start($dir, $d, $port, <<'CONF');
<LocationMatch ^/compat(p|pr)?/>
    SetHandler cgi-script
    CGIplusCompat on
</LocationMatch>
<LocationMatch ^/compatpr?/>
    CGIplusMode cgiplus
</LocationMatch>
CONF
ok t_cmp($fpm_up, 1, 'a private php-fpm (' . kinds_fpm_bin() . ", pid $fpm)");
ok t_cmp($up, 1, 'a private httpd with mod_cgid, mod_proxy_fcgi and mod_cgiplus');
my $r = raw_request("127.0.0.1:$port", 'GET', '/native/endlesslib.pl', []);
ok t_cmp("$r->{code} $r->{body}", "200 small\n", 'it serves');

for my $k (@kinds) {
    my ($path, $what) = @$k;
    $r = raw_request("127.0.0.1:$port", 'GET', $path, []);
    my @big = grep { $_->[0] =~ /^X-Big-\d{3}$/ && length($_->[1] // '') == $vlen } @{ $r->{headers} };
    ok t_cmp($r->{code}, 200, "$what ($path): 200 for $N headers of $LEN bytes");
    ok t_cmp(scalar @big, $N, "$what: all $N headers, whole");
    ok t_cmp($r->{body}, "ok\n", "$what: the body after them");
}

my $seen = 0;
for my $e (@endless) {
    my ($path, $code) = @$e;
    $r = raw_request("127.0.0.1:$port", 'GET', "$path?loop", []);
    ok t_cmp($r->{code}, $code, "$path: header lines without end are stopped: $code");
    ok t_cmp(scalar(grep { $_->[0] =~ /^X-Endless/ } @{ $r->{headers} }), 0, "$path: none of them sent");
    $seen++;
    my $re = qr/CGIPLUS1076: bad header from script \S*endless\S*: the header is larger than CGIplusMaxHeaderSize \(1048576 bytes\)/;
    my $count = sub { scalar(() = private_log($dir) =~ /$re/g) };
    for (1 .. 300) { last if $count->() >= $seen; select undef, undef, undef, 0.1 }
    ok t_cmp($count->(), $seen, "$path: logged (CGIPLUS1076, the bound named)");
    $r = raw_request("127.0.0.1:$port", 'GET', $path, []);
    ok t_cmp("$r->{code} $r->{body}", "200 small\n", "$path: the next request is served");
}

kinds_stop($dir, $fpm);
