# What an administrator puts around CGI scripts' responses, side by side
# with mod_cgid (session 45): mod_deflate (AddOutputFilterByType and
# SetOutputFilter, a script's own Content-Encoding), mod_substitute,
# mod_sed, mod_include (AddOutputFilter INCLUDES on a script's text/html),
# mod_headers (set, always, unset, edit, and `always` on a script's 404;
# `Header unset` leaves a script's header under both, `Header always
# unset` removes it),
# mod_filter's FilterProvider by Content-Type. The same script under
# mod_cgid and in each kind (CGIplusCompat plain and persistent, a CGIplus
# script, the perl and python engines), over HTTP/1.1 and h2c, each twice
# on our side: the status, every header but Date and the framing
# (Content-Length or chunked, which httpd picks from timing), and the body
# (inflated: where the output was flushed changes the deflate stream's
# bytes, not what it inflates to) must be mod_cgid's. Bodies are past
# mod_deflate's very-small-response rule, which timing decides
# (docs/cgi-compat.md, "Framing").
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Compress::Zlib ();
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop private_dir libexec);
use FreePort qw(free_ports);
use AppTest qw(write_file);

# [our prefix, its script, the reference's script, what it is]
my @kinds = (
    ['compat',  'lib.pl',   'lib.pl',   'CGIplusCompat, plain CGI'],
    ['compatp', 'lib.pl',   'lib.pl',   'CGIplusCompat, persistent'],
    ['native',  'lib.pl',   'lib.pl',   'CGIplus script'],
    ['eperl',   'plain.pl', 'plain.pl', 'perl engine'],
    ['epy',     'plain.py', 'plain.py', 'python engine'],
);
my @filters = qw(deflate setdeflate subst sed ssi hdr filter);
my @modes = qw(html status404 enc);
my @protos = (['h1', '--http1.1'], ['h2c', '--http2-prior-knowledge']);
my @mods = qw(alias mime cgid deflate substitute sed include headers filter http2);

# What each filter does to mod_cgid's page, so the comparison is not of
# filters that did nothing.
my %effect = (deflate => qr/^content-encoding: gzip\n.*^\(inflated\) <html>/ms,
              setdeflate => qr/^content-encoding: gzip\n.*^\(inflated\) <html>/ms,
              subst => qr/<p>HELLO world/, sed => qr/hello WORLD/,
              ssi => qr/^ssi-ok$/m, filter => qr/hello FILTERED/,
              hdr => qr/^content-type: text\/html; charset=utf-8\n.*^x-always: two\n(?!.*^x-gone).*^x-set: one\n/ms);

plan tests => 1 + @filters + @filters * @modes * @protos * @kinds * 2,
    need { 'needs ' . join(', ', map { "mod_$_" } @mods) =>
               !grep({ !-f libexec() . "/mod_$_.so" } @mods) };

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $dir = private_dir('outfilters');
my ($port) = free_ports(1);
my $d = "$dir/s";
mkdir $d;
chmod 0755, $d;

# The responses, by QUERY_STRING: an SSI-bearing text/html page, a 404
# with a body of the script's, a body gzipped by the script itself.
my $perl = <<'PL';
sub respond {
    my $q = $ENV{QUERY_STRING} // '';
    binmode STDOUT;
    my $page = "<html><body>\n" . ("<p>hello world, filler text</p>\n" x 30)
             . "<!--#set var=\"x\" value=\"ssi-ok\" --><!--#echo var=\"x\" -->\n</body></html>\n";
    if ($q eq 'status404') {
        print "Status: 404 Not Here\nContent-Type: text/html\nX-Script: yes\nX-Gone: yes\n\n$page";
    } elsif ($q eq 'enc') {
        require IO::Compress::Gzip;
        my $z;
        IO::Compress::Gzip::gzip(\$page => \$z, Minimal => 1);
        print "Content-Type: text/html\nContent-Encoding: gzip\nX-Script: yes\nX-Gone: yes\n\n$z";
    } else {
        print "Content-Type: text/html\nX-Script: yes\nX-Gone: yes\n\n$page";
    }
}
PL
write_file("$d/plain.pl", "#!/usr/bin/perl\n$perl\nrespond();\n", 0755);
write_file("$d/lib.pl", <<"PL", 0755);
#!/usr/bin/perl
use lib '$top/lib/perl';
use CGIplus;
$perl
while (CGIplus::accept()) {
    respond();
    CGIplus::finish();
}
PL
write_file("$d/plain.py", <<'PY', 0755);
#!/usr/bin/python3
import gzip, os, sys
q = os.environ.get("QUERY_STRING", "")
page = (b"<html><body>\n" + b"<p>hello world, filler text</p>\n" * 30
        + b"<!--#set var=\"x\" value=\"ssi-ok\" --><!--#echo var=\"x\" -->\n</body></html>\n")
out = sys.stdout.buffer
if q == "status404":
    out.write(b"Status: 404 Not Here\nContent-Type: text/html\nX-Script: yes\nX-Gone: yes\n\n" + page)
elif q == "enc":
    out.write(b"Content-Type: text/html\nContent-Encoding: gzip\nX-Script: yes\nX-Gone: yes\n\n" + gzip.compress(page, mtime=0))
else:
    out.write(b"Content-Type: text/html\nX-Script: yes\nX-Gone: yes\n\n" + page)
PY

write_file("$dir/httpd.conf", private_conf($dir, $port, \@mods, <<"CONF"), 0644);
TypesConfig /etc/mime.types
ScriptSock $dir/cgid.sock
Protocols h2c http/1.1
AliasMatch ^/[a-z]+/[a-z]+/(.*)\$ $d/\$1
<Directory $d>
    Require all granted
    Options +ExecCGI +Includes
</Directory>
<LocationMatch ^/[a-z]+/(cgid|compat|compatp)/>
    SetHandler cgi-script
</LocationMatch>
<LocationMatch ^/[a-z]+/compatp?/>
    CGIplusCompat on
</LocationMatch>
<LocationMatch ^/[a-z]+/compatp/>
    CGIplusMode cgiplus
</LocationMatch>
<LocationMatch ^/[a-z]+/(native|eperl|epy)/>
    SetHandler cgiplus-script
</LocationMatch>
<LocationMatch ^/[a-z]+/native/>
    CGIplusMode cgiplus
</LocationMatch>
<LocationMatch ^/[a-z]+/eperl/>
    CGIplusEngine $top/lib/perl/cgiplus-engine-perl
</LocationMatch>
<LocationMatch ^/[a-z]+/epy/>
    CGIplusEngine $top/lib/python/cgiplus-engine-python
</LocationMatch>
<LocationMatch ^/deflate/>
    AddOutputFilterByType DEFLATE text/html
</LocationMatch>
<LocationMatch ^/setdeflate/>
    SetOutputFilter DEFLATE
</LocationMatch>
<LocationMatch ^/subst/>
    AddOutputFilterByType SUBSTITUTE text/html
    Substitute "s/hello/HELLO/n"
</LocationMatch>
<LocationMatch ^/sed/>
    SetOutputFilter Sed
    OutputSed "s/world/WORLD/g"
</LocationMatch>
<LocationMatch ^/ssi/>
    AddOutputFilter INCLUDES .pl .py
</LocationMatch>
<LocationMatch ^/hdr/>
    Header set X-Set one
    Header always set X-Always two
    # a script's header is in err_headers_out (httpd's CGI header
    # scanner): "unset" leaves it, "always unset" takes it out
    Header unset X-Script
    Header always unset X-Gone
    Header edit Content-Type ^text/html\$ "text/html; charset=utf-8"
    Header always set X-Error yes "expr=%{REQUEST_STATUS} -ge 400"
</LocationMatch>
<LocationMatch ^/filter/>
    FilterDeclare byType CONTENT_SET
    FilterProvider byType SUBSTITUTE "%{CONTENT_TYPE} =~ m#^text/html#"
    FilterChain byType
    Substitute "s/world/FILTERED/n"
</LocationMatch>
CONF
ok t_cmp(private_start("$dir/httpd.conf", $port), 1,
         'a private httpd with mod_cgid, the filters, mod_http2 and mod_cgiplus');

my %skip = map { $_ => 1 } qw(date content-length transfer-encoding connection keep-alive upgrade);

# "status\nheaders\n\nbody" as compared; the kind's prefix made neutral.
sub fetch {
    my ($proto, $path) = @_;
    open my $fh, '-|', 'curl', '-s', '-S', '--max-time', '20', '-D', '-', $proto,
        '-H', 'Accept-Encoding: gzip', "http://127.0.0.1:$port$path" or die "curl: $!";
    binmode $fh;
    local $/;
    my $out = <$fh> // '';
    close $fh;
    my ($head, $body) = split /\r\n\r\n/, $out, 2;
    my @l = split /\r\n/, $head // '';
    (my $status = shift(@l) // '') =~ s{^HTTP/\S+ (\d+).*}{$1};
    my @h = sort map { lc } grep { /^([^:]+):/ && !$skip{lc $1} } @l;
    if (grep { /^content-encoding:\s*gzip/ } @h) {
        my $in = Compress::Zlib::memGunzip($body // '');
        $body = defined $in ? "(inflated) $in" : '(does not inflate)';
    }
    my $r = "$status\n" . join("\n", @h) . "\n\n" . ($body // '');
    $r =~ s{/(?:cgid|compatp?|native|eperl|epy)/}{/KIND/}g;
    return $r;
}

for my $f (@filters) {
    ok t_cmp(fetch('--http1.1', "/$f/cgid/lib.pl?html"), $effect{$f}, "$f: the filter works on mod_cgid's page");
    for my $m (@modes) {
        for my $p (@protos) {
            my ($pname, $popt) = @$p;
            my %want;
            for my $k (@kinds) {
                my ($prefix, $script, $ref, $what) = @$k;
                $want{$ref} //= fetch($popt, "/$f/cgid/$ref?$m");
                for my $n (1, 2) {
                    ok t_cmp(fetch($popt, "/$f/$prefix/$script?$m"), $want{$ref},
                             "$f, $m, $pname, $what, #$n: as under mod_cgid");
                }
            }
        }
    }
}

private_stop("$dir/httpd.pid");
