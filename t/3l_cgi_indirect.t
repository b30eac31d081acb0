# CGI scripts reached the less direct ways httpd offers (ErrorDocument,
# Action, ScriptAliasMatch, mod_rewrite's [PT] and [H=], <FilesMatch>
# SetHandler, .htaccess, DirectoryIndex, SSI, a script's internal
# redirect, 304/204/401 answers, nph-, CGIPassAuth), served by mod_cgid
# and by mod_cgiplus in CGIplusCompat scopes (plain CGI; the perl and
# python engines) and as native CGIplus scripts (SetHandler
# cgiplus-script, the perl scripts inside CGIplus's request loop) of one
# private httpd, one virtual host a kind, the same configuration: the status, the headers (bar Date, Server and
# the framing) and what the script saw must be the same (session 38).
# Found by this comparison: an ErrorDocument for a script that failed
# before its header got no REDIRECT_ERROR_NOTES under mod_cgiplus, where
# mod_cgi's ErrorDocuments get httpd's scanner's words ("End of script
# output before headers: fail.cgi", "Premature end of script headers:
# ...", "malformed header from script '...': Bad header: ...", and for a
# 504 "Script timed out before returning headers: ...").
# Documented differences left out of the comparison: REDIRECT_PATH (the
# runner's PATH) and an error document's CONTENT_LENGTH after a POST.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_dir libexec);
use FreePort qw(free_ports);
use POSIX ();
use AppTest qw(write_file curl);

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $lib = libexec();

my @kinds = (
    ['cgid',  'mod_cgid (the reference)', ''],
    ['compat', 'CGIplusCompat, plain CGI', 'CGIplusCompat on'],
    ['eperl', 'CGIplusCompat, perl engine',
     "CGIplusCompat on\n        CGIplusEngine $top/lib/perl/cgiplus-engine-perl"],
    ['epy', 'CGIplusCompat, python engine',
     "CGIplusCompat on\n        CGIplusEngine $top/lib/python/cgiplus-engine-python"],
    # CGIplus versions of the perl scripts under $w/n, SetHandler cgiplus-script
    ['native', 'native CGIplus scripts', ''],
);
# What a native scope answers differently on purpose (cgi-compat.md):
# 502 for a failed script (no ErrorDocument 500 of mod_cgi's), every
# request has a CONTENT_LENGTH; and it has no python scripts here.
sub native_skips { $_[0] =~ m{\.py\b|\.foopy|/cgi-bin/(fail|empty|short|bad)|^/slow/} }

# [label, curl arguments, path]
my @req = (
    ['ErrorDocument 404', [], '/nonexistent/p?a=b'],
    ['ErrorDocument 404 after a POST', ['--data-binary', 'abc'], '/nonexistent?a=b'],
    map({ my $x = $_;
          (["ErrorDocument 500, $x exits 1 before any output", [], "/cgi-bin/fail.$x?q=1"],
           ["ErrorDocument 500, $x exits 1 before any output, POST", ['--data-binary', 'abc'],
            "/cgi-bin/fail.$x?q=1"],
           ["ErrorDocument 500, $x writes nothing", [], "/cgi-bin/empty.$x"],
           ["ErrorDocument 500, $x ends inside its header", [], "/cgi-bin/short.$x"],
           ["ErrorDocument 500, $x writes a malformed header", [], "/cgi-bin/bad.$x"],
           ["ErrorDocument 500, $x writes a long malformed line", [], "/cgi-bin/bad2.$x"],
           ["ErrorDocument 504, $x silent past the timeout", [], "/slow/sleep.$x"],
           ["ErrorDocument 504, $x silent inside its header", [], "/slow/sleeph.$x"],
           ["internal redirect by $x", [], "/cgi-bin/redir.$x?r=1"],
           ["internal redirect by $x after a POST", ['--data-binary', 'abc'], "/cgi-bin/redir.$x?r=1"],
           ["Action, $x", [], "/sub/t.foo$x/extra?z=1"],
           ["ScriptAliasMatch, $x", [], "/sam/env.$x/pi?q=1"],
           ["Status: 304, $x", [], "/cgi-bin/s304.$x"],
           ["Status: 204, $x", [], "/cgi-bin/s204.$x"],
           ["Status: 401 with WWW-Authenticate, $x", [], "/cgi-bin/s401.$x"],
           ["CGIPassAuth On, $x", ['-H', 'Authorization: Basic dTpw'], "/auth/env.$x"],
           ["no CGIPassAuth, $x", ['-H', 'Authorization: Basic dTpw'], "/cgi-bin/env.$x"]) }
        'cgi', 'py'),
    ['Action after a POST', ['--data-binary', 'xyz'], '/sub/t.foocgi?z=1'],
    ['Action ... virtual', [], '/virt/any/thing?v'],
    ['RewriteRule [PT] to a script', [], '/x/abc?o=1'],
    ['RewriteRule [H=cgi-script]', [], '/hh/f.pl/pi?w'],
    ['<FilesMatch> SetHandler cgi-script', [], '/sub/f.cgi/pi'],
    ['.htaccess Options +ExecCGI, AddHandler', [], '/ht/h.cgi?hq'],
    ['DirectoryIndex index.cgi', [], '/idx/'],
    ['DirectoryIndex index.cgi with a query', [], '/idx/?q=1'],
    ['SSI include virtual and exec cgi', [], '/sub/i.shtml?dq=1'],
    ['nph- script', [], '/cgi-bin/nph-x.cgi'],
    ['HEAD of a 304', ['-I'], '/cgi-bin/s304.cgi'],
);

plan tests => 1 + (@kinds - 1) * @req - grep({ native_skips($_->[2]) } @req),
    need { 'needs mod_cgid, mod_rewrite, mod_actions, mod_include' =>
               (-f "$lib/mod_cgid.so" && -f "$lib/mod_rewrite.so" && -f "$lib/mod_actions.so"
                && -f "$lib/mod_include.so") };

my $dir = private_dir('indirect');
my @ports = free_ports(scalar @kinds);
my $w = "$dir/www";
mkdir $_, 0755 for $w, "$w/n", map { ("$w/$_", "$w/n/$_") } qw(cgi-bin sub ht idx plain auth slow);

my $env_pl = <<'PL';
#!/usr/bin/perl
binmode STDIN;
my $b = '';
read(STDIN, $b, $ENV{CONTENT_LENGTH}) if ($ENV{CONTENT_LENGTH} // '') =~ /^[1-9]/;
print "Content-Type: text/plain\n\n";
print "$_=$ENV{$_}\n" for grep { /^(REDIRECT_|REQUEST_METHOD$|REQUEST_URI$|SCRIPT_NAME$|PATH_|QUERY_STRING$|CONTENT_LENGTH$|HTTP_AUTHORIZATION$|SERVER_PROTOCOL$|DOCUMENT_URI$)/ } sort keys %ENV;
print "BODY=$b\n";
PL
my $env_py = <<'PY';
#!/usr/bin/python3
import os, re, sys
n = int(os.environ.get("CONTENT_LENGTH") or 0)
b = sys.stdin.buffer.read(n).decode() if n > 0 else ""
out = "Content-Type: text/plain\n\n"
for k in sorted(os.environ):
    if re.match(r"(REDIRECT_|REQUEST_METHOD$|REQUEST_URI$|SCRIPT_NAME$|PATH_|QUERY_STRING$|CONTENT_LENGTH$|HTTP_AUTHORIZATION$|SERVER_PROTOCOL$|DOCUMENT_URI$)", k):
        out += k + "=" + os.environ[k] + "\n"
sys.stdout.write(out + "BODY=" + b + "\n")
PY
write_file("$w/cgi-bin/$_", $env_pl, 0755)
    for qw(env.cgi err.cgi handler.cgi s.cgi);
write_file($_, $env_pl, 0755) for "$w/idx/index.cgi", "$w/ht/h.cgi", "$w/sub/f.cgi",
    "$w/plain/f.pl", "$w/auth/env.cgi";
write_file($_, $env_py, 0755) for "$w/cgi-bin/env.py", "$w/auth/env.py";
my %out = (
    fail  => ['print STDERR "failing\n"; exit 1;', 'sys.stderr.write("failing\n"); sys.exit(1)'],
    empty => ['exit 0;', 'sys.exit(0)'],
    short => ['print "Content-Type: text/plain\n";', 'sys.stdout.write("Content-Type: text/plain\n")'],
    bad   => ['print "Bad line\n\nx";', 'sys.stdout.write("Bad line\n\nx")'],
    bad2  => ['print "Bad line that is a good deal longer than thirty bytes\n\nx";',
              'sys.stdout.write("Bad line that is a good deal longer than thirty bytes\n\nx")'],
    redir => ['binmode STDIN; read(STDIN, my $b, $ENV{CONTENT_LENGTH}) if $ENV{CONTENT_LENGTH}; '
              . 'print "Location: /cgi-bin/env.cgi?from=redir\n\n";',
              'sys.stdin.buffer.read(int(os.environ.get("CONTENT_LENGTH") or 0)); '
              . 'sys.stdout.write("Location: /cgi-bin/env.py?from=redir\n\n")'],
    s304  => ['print "Status: 304 Not Modified\nETag: \"x\"\nContent-Type: text/plain\n\nnot sent\n";',
              'sys.stdout.write("Status: 304 Not Modified\nETag: \"x\"\nContent-Type: text/plain\n\nnot sent\n")'],
    s204  => ['print "Status: 204 No Content\nX-A: 1\nContent-Type: text/plain\n\nnot sent\n";',
              'sys.stdout.write("Status: 204 No Content\nX-A: 1\nContent-Type: text/plain\n\nnot sent\n")'],
    s401  => ['print "Status: 401 Unauthorized\nWWW-Authenticate: Basic realm=\"zone\"\nContent-Type: text/plain\n\nlogin please\n";',
              'sys.stdout.write("Status: 401 Unauthorized\nWWW-Authenticate: Basic realm=\"zone\"\nContent-Type: text/plain\n\nlogin please\n")'],
);
for my $n (keys %out) {
    write_file("$w/cgi-bin/$n.cgi", "#!/usr/bin/perl\n$out{$n}[0]\n", 0755);
    write_file("$w/cgi-bin/$n.py", "#!/usr/bin/python3\nimport os, sys\n$out{$n}[1]\n", 0755);
}
for (['sleep', '', ''], ['sleeph', '$| = 1; print "Content-Type: text/plain\n";',
                        'sys.stdout.write("Content-Type: text/plain\n"); sys.stdout.flush()']) {
    my ($n, $pl, $py) = @$_;
    write_file("$w/slow/$n.cgi", "#!/usr/bin/perl\n$pl\nsleep 4;\n", 0755);
    write_file("$w/slow/$n.py", "#!/usr/bin/python3\nimport sys, time\n$py\ntime.sleep(4)\n", 0755);
}
write_file("$w/cgi-bin/nph-x.cgi", <<'PL', 0755);
#!/usr/bin/perl
$| = 1;
print "$ENV{SERVER_PROTOCOL} 200 OK\r\nContent-Type: text/plain\r\nX-Nph: 1\r\n\r\nnph body\n";
PL
write_file("$w/cgi-bin/x.cgi", <<'PL', 0755);
#!/usr/bin/perl
print "Content-Type: text/html\n\nX[$ENV{QUERY_STRING}|$ENV{SERVER_PROTOCOL}|$ENV{REQUEST_METHOD}|$ENV{SCRIPT_NAME}|", $ENV{DOCUMENT_URI} // '-', "]";
PL
write_file("$w/sub/$_", "a foo file\n", 0644) for qw(t.foocgi t.foopy);
write_file("$w/sub/i.shtml",
           qq{A<!--#include virtual="/cgi-bin/x.cgi?q1" -->B<!--#exec cgi="/cgi-bin/x.cgi" -->C\n}, 0644);
write_file("$w/ht/.htaccess", "Options +ExecCGI\nAddHandler cgi-script .cgi\n", 0644);

# the native tree: each perl script's body inside CGIplus's request loop
for my $f (map { s{^\Q$w/\E}{}r } grep { !m{/n/} } glob("$w/*/*.cgi $w/*/*.pl")) {
    open my $in, '<', "$w/$f" or die "$w/$f: $!";
    my (undef, @body) = <$in>;
    close $in;
    write_file("$w/n/$f", "#!/usr/bin/perl\nuse lib '$top/lib/perl';\nuse CGIplus;\n"
               . "while (CGIplus::accept()) {\n    binmode STDIN;\n    local \$| = 1;\n"
               . join('', map { "    $_" } @body) . "\n    CGIplus::finish();\n}\n", 0755);
}
write_file("$w/n/sub/$_", "a foo file\n", 0644) for qw(t.foocgi t.foopy);
write_file("$w/n/sub/i.shtml",
           qq{A<!--#include virtual="/cgi-bin/x.cgi?q1" -->B<!--#exec cgi="/cgi-bin/x.cgi" -->C\n}, 0644);
write_file("$w/n/ht/.htaccess", "Options +ExecCGI\nAddHandler cgiplus-script .cgi\n", 0644);

my $hosts = '';
for my $i (0 .. $#kinds) {
    my $scope = $kinds[$i][2];
    my $native = $kinds[$i][0] eq 'native';
    my $w = $native ? "$w/n" : $w;
    my $h = ($i ? "Listen 127.0.0.1:$ports[$i]\n" : '') . <<"CONF";
<VirtualHost 127.0.0.1:$ports[$i]>
    DocumentRoot $w
    ScriptAlias /cgi-bin/ $w/cgi-bin/
    ScriptAliasMatch ^/sam/(.*)\$ $w/cgi-bin/\$1
    ScriptAlias /auth/ $w/auth/
    ScriptAlias /slow/ $w/slow/
    ErrorDocument 504 /cgi-bin/err.cgi
    <Location /slow/>
        CGIDScriptTimeout 2
        CGIplusTimeoutNoProgress 2
    </Location>
    ErrorDocument 404 /cgi-bin/err.cgi
    ErrorDocument 500 /cgi-bin/err.cgi
    Action my-handler /cgi-bin/handler.cgi
    Action my-handler-py /cgi-bin/env.py
    Action my-virt /cgi-bin/handler.cgi virtual
    AddHandler my-handler .foocgi
    AddHandler my-handler-py .foopy
    <Location /virt/>
        SetHandler my-virt
    </Location>
    <Location /auth/>
        CGIPassAuth On
    </Location>
    RewriteEngine on
    RewriteRule ^/x/(.*)\$ /cgi-bin/s.cgi?p=\$1 [PT]
    RewriteRule ^/hh/(.*)\$ /plain/\$1 [H=cgi-script]
    <Directory $w>
        Require all granted
        Options +Includes
        AddOutputFilter INCLUDES .shtml
        $scope
    </Directory>
    <Directory $w/sub>
        Options +ExecCGI +Includes
        <FilesMatch "\\.cgi\$">
            SetHandler cgi-script
        </FilesMatch>
    </Directory>
    <Directory $w/plain>
        Options +ExecCGI
    </Directory>
    <Directory $w/ht>
        AllowOverride All
    </Directory>
    <Directory $w/idx>
        Options +ExecCGI
        AddHandler cgi-script .cgi
        DirectoryIndex index.cgi
    </Directory>
</VirtualHost>
CONF
    if ($native) {
        $h =~ s/\bcgi-script\b/cgiplus-script/g;
        $h =~ s{(<Directory $w>\n)}{$1        <FilesMatch "\\.cgi\$">\n            SetHandler cgiplus-script\n        </FilesMatch>\n};
    }
    $hosts .= $h;
}
write_file("$dir/httpd.conf", private_conf($dir, $ports[0], [qw(alias mime cgid rewrite include actions dir filter)], <<"CONF"), 0644);
TypesConfig /etc/mime.types
ScriptSock $dir/cgid.sock
$hosts
CONF
ok t_cmp(private_start("$dir/httpd.conf", $ports[0]), 1, 'a private httpd with mod_cgid and mod_cgiplus');

sub fetch {
    my ($port, $args, $path, $native) = @_;
    open my $fh, '-|', 'curl', '-s', '--http1.1', '--max-time', '30', '-D', '-', '-o', '-',
        @$args, "http://127.0.0.1:$port$path" or die "curl: $!";
    local $/;
    my $o = <$fh> // '';
    close $fh;
    $o =~ s/\r//g;
    $o =~ s/^(Date|Server|Content-Length|Transfer-Encoding|Connection|Keep-Alive): .*\n//mg;
    # documented (docs/cgi-compat.md): the runner's PATH; an error
    # document's length of a body that is gone
    $o =~ s/^REDIRECT_PATH=.*\n//mg;
    # what differs between the virtual hosts and connections, not the kinds
    $o =~ s/\b$port\b/PORT/g;
    $o =~ s/^(REDIRECT_REMOTE_PORT|REDIRECT_SERVER_SOFTWARE|REDIRECT_SERVER_SIGNATURE)=.*$/$1=/mg;
    $o =~ s/^CONTENT_LENGTH=.*\n//mg if $path =~ m{^/nonexistent|/cgi-bin/(fail|empty|short|bad)};
    $o =~ s/^REDIRECT_CONTENT_LENGTH=.*\n//mg; # mod_cgid: the header; here: none, as above
    if ($native) {
        $o =~ s{\Q$w/n\E(?=/|$)}{$w}mg;
        $o =~ s/^CONTENT_LENGTH=0\n//mg; # the CGIplus protocol's, for no body
    }
    return $o;
}

# The kinds' answers to one request: [0] mod_cgid's. A request that waits
# for a timeout (/slow/) goes to every kind at once.
sub answers {
    my ($args, $path) = @_;
    my @want = grep { !($kinds[$_][0] eq 'native' && native_skips($path)) } 0 .. $#kinds;
    my %got;
    if ($path !~ m{^/slow/}) {
        $got{$_} = fetch($ports[$_], $args, $path, $kinds[$_][0] eq 'native') for @want;
        return \%got;
    }
    my %kid;
    for my $i (@want) {
        my $f = "$w/answer.$i";
        unlink $f;
        my $pid = fork // die "fork: $!";
        if (!$pid) {
            write_file($f, fetch($ports[$i], $args, $path, $kinds[$i][0] eq 'native'), 0644);
            POSIX::_exit(0);
        }
        $kid{$i} = $pid;
    }
    for my $i (@want) {
        waitpid $kid{$i}, 0;
        open my $fh, '<', "$w/answer.$i" or next;
        local $/;
        $got{$i} = <$fh>;
    }
    return \%got;
}

for my $r (@req) {
    my ($label, $args, $path) = @$r;
    my $got = answers($args, $path);
    for my $i (1 .. $#kinds) {
        next if $kinds[$i][0] eq 'native' && native_skips($path);
        ok t_cmp($got->{$i}, $got->{0}, "$label ($path): $kinds[$i][1] as mod_cgid");
    }
}
