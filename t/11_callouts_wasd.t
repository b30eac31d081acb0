# WASD's file callouts (docs/PROTOCOL.md, "Callouts"): MAP-FILE (a file's
# URL path, checked by MAP-PATH), AUTH-FILE (httpd's access checks for a
# file as the request's user) and WATCH (a line at trace1), each on the
# direct path and relayed through the runner (CGIplusDirect off), from a
# real script through a private httpd with Basic auth.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use MIME::Base64 qw(encode_base64);
use Digest::SHA qw(sha1_base64);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_dir libexec);
use FreePort qw(free_ports);
use AppTest qw(write_file);
use RawHTTP qw(raw_request);

my @sides = (['d', 'direct'], ['r', 'relayed']);
plan tests => 1 + 40 * @sides;

my $top = Apache::Test::config()->{vars}{top_dir};
my $lib = libexec();
my $dir = private_dir('callwasd');
my ($port) = free_ports(1);
my ($s, $h, $o) = ("$dir/s", "$dir/htdocs", "$dir/other");
for my $d ($s, "$s/deep", $h, $o, "$h/sub", "$h/priv", "$h/denied", "$h/shadow") {
    mkdir $d;
    chmod 0755, $d;
}
write_file($_, "x\n", 0644) for "$s/data.txt", "$h/sub/a b%#?.txt", "$h/priv/secret.txt",
    "$h/denied/no.txt", "$h/pub.txt", "$h/shadow/x.txt", "$o/x.txt";
write_file("$dir/htpasswd", join('', map { "$_:{SHA}" . sha1_base64("pw-$_") . "=\n" } qw(alice bob)), 0644);

# Each line of the query (URL-decoded, LF between) is one callout, its
# answer one line "answer=..." ("answer=" for a ! one); ?flood: 110 !LOG callouts, then a WATCH.
write_file("$s/co.pl", <<"PL", 0755);
#!/usr/bin/perl
use strict;
use warnings;
use lib '$top/lib/perl';
use CGIplus;
while (CGIplus::accept()) {
    my \$q = \$ENV{QUERY_STRING} // '';
    print "Content-Type: text/plain\\n\\n";
    if (\$q eq 'flood') {
        CGIplus::callout("!LOG: flood line \$_") for 1 .. 110;
        print 'answer=', CGIplus::callout('WATCH: after-the-flood'), "\\n";
    } else {
        \$q =~ s/%([0-9A-Fa-f]{2})/chr hex \$1/ge;
        print 'answer=', CGIplus::callout(\$_) // "undef \$!", "\\n" for split /\\n/, \$q;
    }
    CGIplus::finish();
}
PL

write_file("$s/deep/co.pl", do { open my $fh, '<', "$s/co.pl" or die $!; local $/; <$fh> }, 0755);

# /d/ and /r/ at LogLevel warn, /dt/ and /rt/ at trace1; /r*/ relayed (the
# runner logs at the server's cgiplus level, debug). One httpd child: after
# its first request of a pool the rest of /d*/ is direct.
my $extra = <<"CONF";
StartServers 1
ServerLimit 1
ThreadsPerChild 8
MaxRequestWorkers 8
MinSpareThreads 1
MaxSpareThreads 8
LogLevel warn cgiplus:debug
LoadModule alias_module $lib/mod_alias.so
LoadModule authn_core_module $lib/mod_authn_core.so
LoadModule authn_file_module $lib/mod_authn_file.so
LoadModule auth_basic_module $lib/mod_auth_basic.so
LoadModule authz_user_module $lib/mod_authz_user.so
DocumentRoot $h
Alias /sub/shadow/ $o/
AliasMatch ^/(d|r|dt|rt)/(.*)\$ $s/\$2
<Directory $dir>
    Require all granted
</Directory>
<Directory $s>
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusMaxWorkers 1
</Directory>
<Directory $h/priv>
    AuthType Basic
    AuthName private
    AuthUserFile $dir/htpasswd
    Require user alice
</Directory>
<Directory $h/denied>
    Require all denied
</Directory>
<LocationMatch ^/rt?/>
    CGIplusDirect off
</LocationMatch>
<LocationMatch ^/(d|r)t/>
    LogLevel trace1
</LocationMatch>
<LocationMatch ^/(d|r)/>
    LogLevel warn
</LocationMatch>
CONF
write_file("$dir/httpd.conf", private_conf($dir, $port, [], $extra), 0644);
ok t_cmp(private_start("$dir/httpd.conf", $port), 1, 'a private httpd');

sub esc { my ($x) = @_; $x =~ s/([^A-Za-z0-9\/._-])/sprintf '%%%02X', ord $1/ge; $x }
# The answers to the callouts in @lines, from the script at /$p/co.pl.
sub ask {
    my ($p, $auth, @lines) = @_;
    my @h = $auth ? (Authorization => 'Basic ' . encode_base64("$auth:pw-$auth", '')) : ();
    my $r = raw_request("127.0.0.1:$port", 'GET', "/$p/co.pl?" . esc(join "\n", @lines), \@h);
    return join "\n", map { /^answer=(.*)$/ ? $1 : "?$_" } split /\n/, $r->{body};
}
sub log_text { open my $fh, '<', "$dir/error_log" or return ''; local $/; <$fh> }

for my $c (@sides) {
    my ($p, $side) = @$c;
    ask($_, undef, 'NOOP') for $p, "${p}t", "$p/deep"; # a child's first request of a pool is relayed

    # MAP-FILE: the request's own mapping (/$p/ for the scripts' directory),
    # then DocumentRoot; the answer is escaped and MAP-PATH maps it back.
    ok t_cmp(ask($p, undef, "MAP-FILE: $s/data.txt"), "200 /$p/data.txt",
             "$side: MAP-FILE of a file beside the script: the request's own mapping");
    ok t_cmp(ask($p, undef, "MAP-PATH: /$p/data.txt"), "200 $s/data.txt",
             "$side: and MAP-PATH maps it back");
    # A script deeper in the Alias: its directory and URL less the segment
    # they share (deep) reach the Alias's root.
    ok t_cmp(ask("$p/deep", undef, "MAP-FILE: $s/data.txt", "MAP-FILE: $s/deep/co.pl"),
             "200 /$p/data.txt\n200 /$p/deep/co.pl",
             "$side: MAP-FILE from a script deeper in the Alias: its root found too");
    my $u = ask($p, undef, "MAP-FILE: $h/sub/a b%#?.txt");
    ok t_cmp($u, qr{^200 /sub/a%20b%25%23%3f\.txt$}i, "$side: MAP-FILE under DocumentRoot, URL-escaped");
    $u =~ s/^200 //;
    ok t_cmp(ask($p, undef, "MAP-PATH: $u"), "200 $h/sub/a b%#?.txt",
             "$side: MAP-PATH of that URL gives the same file (round trip)");
    ok t_cmp(ask($p, undef, "MAP-FILE: $h/pub.txt"), '200 /pub.txt', "$side: MAP-FILE of a file at DocumentRoot");
    ok t_cmp(ask($p, undef, "MAP-FILE: $h/no/such.txt"), '200 /no/such.txt',
             "$side: MAP-FILE does not ask that the file exist (as MAP-PATH)");
    # /sub/shadow/ is an Alias elsewhere: no answer rather than that URL.
    ok t_cmp(ask($p, undef, "MAP-FILE: $h/sub/shadow/x.txt"), '404 no URL path of this server maps to that file',
             "$side: MAP-FILE never answers a URL that maps to another file");
    ok t_cmp(ask($p, undef, "MAP-FILE: $o/x.txt"), '404 no URL path of this server maps to that file',
             "$side: MAP-FILE of a file no candidate covers: 404");
    ok t_cmp(ask($p, undef, 'MAP-FILE: /etc/passwd'), '404 no URL path of this server maps to that file',
             "$side: MAP-FILE outside every mapping: 404");
    ok t_cmp(ask($p, undef, "MAP-FILE: $h/denied/no.txt"), '404 no URL path of this server maps to that file',
             "$side: MAP-FILE of a file whose URL httpd refuses (MAP-PATH: 404): 404");
    ok t_cmp(ask($p, undef, "MAP-FILE: $h//pub.txt"), '404 no URL path of this server maps to that file',
             "$side: MAP-FILE of a name httpd would not give back as written: 404");
    # 500 segments of three spaces and an x: 2.5 KB, 5.5 KB escaped.
    ok t_cmp(ask($p, undef, "MAP-FILE: $h/" . ('   x/' x 500) . 'f'),
             '500 the URL path is longer than an answer line may be (4096 bytes)',
             "$side: MAP-FILE whose URL an answer line cannot carry: 500, never a cut one");
    ok t_cmp(ask($p, undef, 'MAP-FILE: sub/pub.txt', 'MAP-FILE:', 'MAP-FILE'),
             join("\n", ('400 MAP-FILE wants an absolute file name starting with /') x 3),
             "$side: MAP-FILE of a relative or empty name: 400");
    ok t_cmp(ask($p, undef, "MAP-FILE: $h/a\rb", "MAP-PATH: /a\rb", "AUTH-FILE: $h/a\0b"),
             join("\n", ('400 a callout line httpd answers may not hold a CR or NUL byte') x 3),
             "$side: a CR or NUL in a name httpd gets: 400, never a cut name");
    ok t_cmp(ask($p, undef, "!MAP-FILE: $s/data.txt", 'NOOP'), "\n200 NOOP",
             "$side: !MAP-FILE gets no answer, the next callout its own");

    # AUTH-FILE: httpd's checks of the file as the request's user.
    ok t_cmp(ask($p, 'alice', "AUTH-FILE: $h/priv/secret.txt"), '200 access allowed',
             "$side: AUTH-FILE: the required user may read the file behind Basic auth");
    ok t_cmp(ask($p, 'bob', "AUTH-FILE: $h/priv/secret.txt"), '403 access denied (status 401)',
             "$side: AUTH-FILE: another valid user may not (httpd says 401)");
    ok t_cmp(ask($p, undef, "AUTH-FILE: $h/priv/secret.txt"), '403 access denied (status 401)',
             "$side: AUTH-FILE: nor a request without credentials");
    ok t_cmp(ask($p, 'alice', "AUTH-FILE: $h/priv/none.txt"), '404 no such file',
             "$side: AUTH-FILE of a missing file the user may reach: 404");
    ok t_cmp(ask($p, undef, "AUTH-FILE: $h/denied/no.txt"), '403 access denied (status 403)',
             "$side: AUTH-FILE in a Require all denied directory: 403");
    ok t_cmp(ask($p, undef, "AUTH-FILE: $h/denied/none.txt"), '403 access denied (status 403)',
             "$side: and there a missing file is 403 too (no existence told)");
    ok t_cmp(ask($p, undef, "AUTH-FILE: $h/pub.txt"), '200 access allowed', "$side: AUTH-FILE of a public file");
    ok t_cmp(ask($p, undef, "AUTH-FILE: $h/pub.txt/more"), '404 no such file',
             "$side: AUTH-FILE of a name past a file (path info): 404");
    ok t_cmp(ask($p, undef, 'AUTH-FILE: pub.txt', 'AUTH-FILE'),
             join("\n", ('400 AUTH-FILE wants an absolute file name starting with /') x 2),
             "$side: AUTH-FILE of a relative or empty name: 400");
    ok t_cmp(ask($p, undef, "AUTH-FILE: $h/denied/../pub.txt", "AUTH-FILE: $h/sub/.."),
             join("\n", ('400 AUTH-FILE wants a file name without .. segments') x 2),
             "$side: AUTH-FILE of a name with a .. segment: 400");
    ok t_cmp(ask($p, undef, "AUTH-FILE: $h/..pub.txt"), '404 no such file',
             "$side: (a name merely starting with .. is a name)");
    # The file was looked at, not run: a script there is not started.
    write_file("$s/ran.pl", "#!/bin/sh\ntouch $dir/ran-$p\n", 0755);
    ok t_cmp(ask($p, undef, "AUTH-FILE: $s/ran.pl") . (-e "$dir/ran-$p" ? ' ran' : ''), '200 access allowed',
             "$side: AUTH-FILE of a script answers without running it");

    # The callouts httpd answers, a bare keyword of each, in one block.
    ok t_cmp(ask($p, undef, 'map-file:', 'Auth-File:', 'Watch:'),
             "400 MAP-FILE wants an absolute file name starting with /\n"
             . "400 AUTH-FILE wants an absolute file name starting with /\n200 WATCH",
             "$side: keywords are case-insensitive");
    ok t_cmp(ask($p, undef, 'MAP-FILES: x'), '400 unknown callout MAP-FILES',
             "$side: an unknown keyword near them is still 400");

    # WATCH: trace1 in the request's error log (scope /${p}t/), not at warn.
    my $before = length log_text();
    ok t_cmp(ask("${p}t", undef, "WATCH: watch-$p-trace1"), '200 WATCH', "$side: WATCH answered at trace1");
    ok t_cmp(ask($p, undef, "WATCH: watch-$p-warn", 'watch'), "200 WATCH\n200 WATCH",
             "$side: WATCH (and a bare one) answered at warn");
    ok t_cmp(ask("${p}t", undef, "!WATCH: watch-$p-silent", 'NOOP'), "\n200 NOOP",
             "$side: !WATCH gets no answer");
    my $log = substr log_text(), $before;
    ok t_cmp(scalar(() = $log =~ /\[cgiplus:trace1\].*CGIPLUS3750: \Q$s\E\/co\.pl watch: watch-$p-trace1$/mg), 1,
             "$side: the WATCH line is in the error log once, at trace1");
    ok t_cmp($log =~ /watch: watch-$p-warn/ ? 'logged' : 'not logged', 'not logged',
             "$side: a WATCH in a scope at LogLevel warn is not logged");
    ok t_cmp($log, $side eq 'direct' ? qr/CGIPLUS3750: .*watch: watch-d-silent$/m
                                     : qr/CGIPLUS3751: .*watch: watch-r-silent$/m,
             $side eq 'direct' ? 'direct: !WATCH is logged by httpd at trace1 too'
                               : "relayed: !WATCH is logged by the runner, at debug");

    # WATCH shares LOG's limiter: past 100 LOG lines, a WATCH is dropped.
    $before = length log_text();
    ok t_cmp(ask($p, undef, 'flood') =~ s/^answer=//r, '429 WATCH dropped (rate limit)',
             "$side: a WATCH after 110 LOG callouts: 429 (LOG's limiter)");
    ok t_cmp(ask($p, undef, 'NOOP'), '200 NOOP', "$side: the worker serves on");
    $log = substr log_text(), $before;
    my $said = $side eq 'direct' ? qr/CGIPLUS1711: .* sent 111 LOG and WATCH callouts in one request; the 11 past/
                                 : qr/CGIPLUS2083: .* dropped \d+ LOG and WATCH callouts/;
    ok t_cmp($log, $said, "$side: the drops are summed up in one line (and the request went $side)");
    ok t_cmp($log =~ /watch: after-the-flood/ ? 'logged' : 'not logged', 'not logged',
             "$side: the dropped WATCH is not logged");

}
