# A local redirect after a POST whose body the script did not read, kind
# by kind, against mod_cgid, over HTTP/1.1 and h2c (session h7). mod_cgi
# turns a `Location: /path` with status 200 into an internal GET without
# a body: its script has had the whole body before its header is read.
# Here the script may answer before the body is all in (a body larger
# than CGIplusBodyBuffer is streamed to it), and the rest of the body,
# still in the connection, was read by the redirected request as its own:
# the target got 2-3 MB of the first request's 3 MB with a CONTENT_LENGTH
# of them, in every kind that streams a body (plain CGI, native, FastCGI,
# direct and relayed). The module now drops what is left before it
# redirects (cgiplus_body_drain): the target gets no body, as under
# mod_cgid, and the connection serves the next request. The same for a
# local ErrorDocument after a script failed before reading the body (a
# malformed header: 502, 500 as CGI): httpd makes it a GET that read the
# rest of the failed request's body as its own; mod_cgi reads the whole
# body whatever the script does ("soak up remaining message"), so its
# ErrorDocument never gets one.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(libexec private_log);
use KindsHttpd qw(kinds_need kinds_dir kinds_start kinds_stop);
use AppTest qw(write_file curl);
use FreePort qw(free_ports);

my @kinds = (
    ['/cgid/redir.pl',      'mod_cgid (the reference)'],
    ['/plain/redir.pl',     'cgiplus-script, plain CGI'],
    ['/native/redirlib.pl', 'native CGIplus script'],
    ['/nativer/redirlib.pl', 'native CGIplus script, relayed'],
    ['/eperl/redir.pl',     'perl engine'],
    ['/eperlr/redir.pl',    'perl engine, relayed'],
    ['/epy/redir.py',       'python engine'],
    ['/fcgi/redirfcgi.pl',  'CGIplusMode fastcgi'],
    ['/fcgir/redirfcgi.pl', 'CGIplusMode fastcgi, relayed'],
    ['/fcgid/redirfcgi.pl', 'fcgid-script drop-in'],
);
# [path, what it is, its status (502 native, 500 as CGI: docs/cgi-compat.md)]
my @failing = (
    ['/plain/ed/bad.pl',      'cgiplus-script, plain CGI', 502],
    ['/native/ed/badlib.pl',  'native CGIplus script', 502],
    ['/nativer/ed/badlib.pl', 'native CGIplus script, relayed', 502],
    ['/eperl/ed/bad.pl',      'perl engine', 500],
    ['/fcgi/ed/badfcgi.pl',   'CGIplusMode fastcgi', 502],
    ['/fcgir/ed/badfcgi.pl',  'CGIplusMode fastcgi, relayed', 502],
    ['/fcgid/ed/badfcgi.pl',  'fcgid-script drop-in', 500],
);
my @protos = (['HTTP/1.1', '--http1.1'], ['h2c', '--http2-prior-knowledge']);
my $N = 3_000_000;

plan tests => 3 + 2 * @protos * @kinds + @kinds + @protos * @failing + 2,
    need kinds_need(), need { 'needs mod_http2' => -f libexec() . '/mod_http2.so' };

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my ($dir, $d, $port) = kinds_dir('redirbody');
my $body = "$dir/body";
write_file($body, 'b' x $N, 0644);

# Each answers a local redirect to /native/echolib.pl without reading its
# body; the target prints "CONTENT_LENGTH|bytes of body it read".
write_file("$d/redir.pl", <<'PL', 0755);
#!/usr/bin/perl
print "Location: /native/echolib.pl\n\n";
PL
write_file("$d/redir.py", <<'PY', 0755);
#!/usr/bin/python3
import sys
sys.stdout.write("Location: /native/echolib.pl\n\n")
PY
write_file("$d/redirlib.pl", <<"PL", 0755);
#!/usr/bin/perl
use lib '$top/lib/perl';
use CGIplus;
while (CGIplus::accept()) {
    print "Location: /native/echolib.pl\\n\\n";
    CGIplus::finish();
}
PL
write_file("$d/redirfcgi.pl", <<'PL', 0755);
#!/usr/bin/perl
use FCGI;
my $req = FCGI::Request();
while ($req->Accept() >= 0) {
    print "Location: /native/echolib.pl\n\n";
}
PL
write_file("$d/echolib.pl", <<"PL", 0755);
#!/usr/bin/perl
use lib '$top/lib/perl';
use CGIplus;
binmode STDIN;
while (CGIplus::accept()) {
    my \$b = do { local \$/; <STDIN> } // '';
    print "Content-Type: text/plain\\n\\n", \$ENV{CONTENT_LENGTH} // '-', '|', length(\$b);
    CGIplus::finish();
}
PL

# A malformed header line, the body unread: 502 (500 as CGI), whose
# ErrorDocument is the echo script.
mkdir "$d/ed";
chmod 0755, "$d/ed";
write_file("$d/ed/bad.pl", "#!/usr/bin/perl\nprint \"Bad Header Line\\n\\n\";\n", 0755);
write_file("$d/ed/badlib.pl", <<"PL", 0755);
#!/usr/bin/perl
use lib '$top/lib/perl';
use CGIplus;
while (CGIplus::accept()) {
    print "Bad Header Line\\n\\n";
    CGIplus::finish();
}
PL
write_file("$d/ed/badfcgi.pl", <<'PL', 0755);
#!/usr/bin/perl
use FCGI;
my $req = FCGI::Request();
while ($req->Accept() >= 0) {
    print "Bad Header Line\n\n";
}
PL

# a virtual host of a lower FcgidMaxRequestLen (a server-wide setting)
my ($lport) = grep { $_ != $port } free_ports(2);

my $lib = libexec();
my ($fpm, $fpm_up, $up) = kinds_start($dir, $d, $port, <<"CONF");
LoadModule http2_module $lib/mod_http2.so
Protocols h2c http/1.1
FcgidMaxRequestLen 10000000
Listen 127.0.0.1:$lport
<VirtualHost 127.0.0.1:$lport>
    FcgidMaxRequestLen 100000
    ErrorDocument 413 /native/echolib.pl
</VirtualHost>
<Directory $d/ed>
    ErrorDocument 500 /native/echolib.pl
    ErrorDocument 502 /native/echolib.pl
</Directory>
CONF
ok t_cmp($fpm_up, 1, 'a private php-fpm');
ok t_cmp($up, 1, 'a private httpd with mod_cgid, mod_http2 and mod_cgiplus');
my ($c, undef, $b) = curl('--http2-prior-knowledge', "http://127.0.0.1:$port/native/echolib.pl");
ok t_cmp("$c $b", '200 0|0', 'the target serves over h2c');

for my $p (@protos) {
    my ($proto, $opt) = @$p;
    for my $k (@kinds) {
        my ($path, $what) = @$k;
        my ($code, $h, $got) = curl($opt, '--data-binary', "\@$body", "http://127.0.0.1:$port$path");
        ok t_cmp("$code $got", '200 0|0',
                 "$proto, $what ($path): a POST of $N bytes redirected locally: the target gets no body");
        ok t_cmp($h->{location} // '', '', "$proto, $what: the redirect is internal (no Location)");
    }
}

for my $p (@protos) {
    my ($proto, $opt) = @$p;
    for my $k (@failing) {
        my ($path, $what, $status) = @$k;
        my ($code, undef, $got) = curl($opt, '--data-binary', "\@$body", "http://127.0.0.1:$port$path");
        ok t_cmp("$code " . ($got =~ /\|(\d+)$/ ? $1 : "?$got"), "$status 0",
                 "$proto, $what ($path): a POST of $N bytes, a malformed header: its ErrorDocument "
                 . 'reads no body');
    }
}

# A body refused unread for its length (FcgidMaxRequestLen, 413: 1907) is
# not read for the ErrorDocument either: no 1906 for it.
my ($lc) = curl('--http1.1', '--data-binary', "\@$body", "http://127.0.0.1:$lport/fcgid/redirfcgi.pl");
ok t_cmp($lc, 413, 'a body over FcgidMaxRequestLen, an ErrorDocument 413: 413');
my $log = private_log($dir);
ok t_cmp(scalar(() = $log =~ /CGIPLUS1907: .*redirfcgi\.pl/g) . ' '
         . scalar(() = $log =~ /CGIPLUS1906: .*redirfcgi\.pl/g), '1 0',
         'refused unread (1907), not read for its ErrorDocument (no 1906)');

# The HTTP/1.1 connection goes on: a second request on it gets its own answer.
for my $k (@kinds) {
    my ($path, $what) = @$k;
    open my $fh, '-|', 'curl', '-s', '-S', '--max-time', '20', '--http1.1',
        '--data-binary', "\@$body", "http://127.0.0.1:$port$path", '--next', '--http1.1',
        '--data-binary', 'four', "http://127.0.0.1:$port/native/echolib.pl" or die "curl: $!";
    my $out = do { local $/; <$fh> } // '';
    close $fh;
    ok t_cmp($out, '0|04|4', "$what ($path): the next request on the connection gets its own body");
}

kinds_stop($dir, $fpm);
