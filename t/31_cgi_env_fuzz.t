# A randomized differential test of the CGI environment (RFC 3875's
# meta-variables as mod_cgi builds them): 400 generated requests (a fixed
# seed: the same requests each run), each sent to an env-dumping script
# under mod_cgid (the reference: the same script, run as plain CGI) and
# under each way mod_cgiplus runs one: plain CGI in a CGIplusCompat scope,
# CGIplusCompat persistent (the Perl library), native CGIplus scripts (the
# Perl and the C library), the perl and python engines (direct and
# relayed) and a CGIplusMode fastcgi application (FCGI.pm), directly or as
# the ErrorDocument of a missing file. Every variable of every request is
# compared (for HEAD, the names), and the body each read; what the docs give
# as different is asserted as they say, in compare(), each with its
# reason; nothing else is left out. Persistent kinds run one worker each
# (CGIplusMaxWorkers 1 in KindsHttpd), so a variable left over from the
# request before (FLAGGED, HTTP_COOKIE, a body's CONTENT_TYPE on a
# kept-alive connection) shows as a difference.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use KindsHttpd qw(kinds_need kinds_dir kinds_start kinds_stop);
use AppTest qw(write_file);
use PrivateHttpd qw(libexec);
use IO::Socket::INET;
use File::Copy qw(copy);
use RawHTTP qw(read_response);

# [URL prefix (KindsHttpd's scopes), script, what it is, 1 if it sees the
#  CGIplus protocol's variables (a library script in record mode),
#  CONTENT_LENGTH of a request without one ('0', or undef: none)]
my @kinds = (
    ['compatc', 'env.pl',     'CGIplusCompat, plain CGI',            0, undef],
    ['compat',  'envlib.pl',  'CGIplusCompat, persistent (library)', 1, undef],
    ['native',  'envlib.pl',  'native CGIplus script (Perl library)', 1, '0'],
    ['native',  'envc',       'native CGIplus script (C library)',   1, '0'],
    ['eperl',   'env.pl',     'perl engine',                         0, undef],
    ['epy',     'env.py',     'python engine',                       0, undef],
    ['eperlr',  'env.pl',     'perl engine, relayed by the runner',  0, undef],
    ['epyr',    'env.py',     'python engine, relayed by the runner', 0, undef],
    ['fcgi',    'envfcgi.pl', 'CGIplusMode fastcgi (FCGI.pm)',       0, '0'],
);
my $NREQ = 400;

my $lib = libexec();
plan tests => 2 + @kinds * 4 + 4,
    need kinds_need(), { 'needs mod_env and mod_setenvif' => -f "$lib/mod_env.so" && -f "$lib/mod_setenvif.so" };

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my ($dir, $d, $port) = kinds_dir('envfuzz');
my $hp = "127.0.0.1:$port";

# The dumps: sorted NAME=VALUE lines (CGIPLUSEOF's value would end a
# persistent response: shown as "(hidden)"), then BODY=length:md5 of the
# body read to its end; X-Env-Names carries the names for HEAD.
my $dump_pl = <<'PL';
use Digest::MD5 ();
sub dump_env {
    my ($b) = @_;
    my @n = sort keys %ENV;
    my $o = '';
    for (@n) {
        (my $v = /^CGIPLUSE(?:OF|SC|OT)$/ ? '(hidden)' : $ENV{$_}) =~ s/([\\\n])/$1 eq "\n" ? '\\n' : '\\\\'/ge;
        $o .= "$_=$v\n";
    }
    return "Content-Type: text/plain\nX-Env-Names: " . join(',', @n) . "\n\n$o"
        . 'BODY=' . length($b) . ':' . Digest::MD5::md5_hex($b) . "\n";
}
PL
write_file("$d/env.pl", "#!/usr/bin/perl\n$dump_pl" . <<'PL', 0755);
binmode STDIN;
binmode STDOUT;
my $b = do { local $/; <STDIN> } // '';
print dump_env($b);
PL
write_file("$d/envlib.pl", "#!/usr/bin/perl\nuse lib '$top/lib/perl';\nuse CGIplus;\n$dump_pl" . <<'PL', 0755);
binmode STDIN;
binmode STDOUT;
while (CGIplus::accept()) {
    my $b = do { local $/; <STDIN> } // '';
    print dump_env($b);
    CGIplus::finish();
}
PL
write_file("$d/envfcgi.pl", "#!/usr/bin/perl\nuse FCGI;\n$dump_pl" . <<'PL', 0755);
# FCGI.pm replaces %ENV with each request's variables: the process's own
# (CGIplusSetEnv's) are seen before the first
my $conf = $ENV{FUZZ_CONF} // '(unset)';
my $req = FCGI::Request();
while ($req->Accept() >= 0) {
    my $b = '';
    while (read(STDIN, my $c, 65536)) { $b .= $c }
    print "X-Start-Conf: $conf\n", dump_env($b);
}
PL
write_file("$d/env.py", <<'PY', 0755);
#!/usr/bin/python3
import hashlib, os, sys
b = sys.stdin.buffer.read()
e = os.environb
n = sorted(e.keys())
o = b"".join(k + b"=" + (b"(hidden)" if k in (b"CGIPLUSEOF", b"CGIPLUSESC", b"CGIPLUSEOT")
                         else e[k].replace(b"\\", b"\\\\").replace(b"\n", b"\\n")) + b"\n"
             for k in n)
sys.stdout.flush()
sys.stdout.buffer.write(b"Content-Type: text/plain\nX-Env-Names: " + b",".join(n) + b"\n\n" + o
                        + b"BODY=%d:%s\n" % (len(b), hashlib.md5(b).hexdigest().encode()))
PY
# The C library: the same dump (FNV-1a for the body's digest), built by
# make (t/src/env_dump.c) against the freshly built libcgiplus.
copy("$top/t/src/env_dump", "$d/envc") or die "t/src/env_dump: $! (make first)\n";
chmod 0755, "$d/envc";
# The same scripts where CGIPassAuth On passes Authorization.
mkdir "$d/auth";
chmod 0755, "$d/auth";
for my $f (qw(env.pl envlib.pl envfcgi.pl env.py envc)) {
    copy("$d/$f", "$d/auth/$f") or die;
    chmod 0755, "$d/auth/$f";
}

# A missing file under /PREFIX/missing-SCRIPT/ is answered by SCRIPT, its
# ErrorDocument (an internal redirect: REDIRECT_* variables).
my %errdoc = map { ("$_->[0]/$_->[1]" => 1, "cgid/$_->[1]" => 1) } @kinds;
my $errdocs = join '', map { my ($p, $f) = split m{/}; "<Location /$p/missing-$f/>\n"
                             . "    ErrorDocument 404 /$p/$f\n</Location>\n" } sort keys %errdoc;
my ($fpm, $fpm_up, $up) = kinds_start($dir, $d, $port, <<"CONF");
$errdocs
LoadModule env_module $lib/mod_env.so
LoadModule setenvif_module $lib/mod_setenvif.so
<Directory $d>
    # a variable of the configuration, and one of the request (must be
    # gone in the request after it, on the same worker)
    SetEnv 9LIVES nine
    SetEnvIf X-Flag "^(.+)\$" FLAGGED=\$1
    # mod_cgiplus's own: every kind but mod_cgid's has it
    CGIplusSetEnv FUZZ_CONF from-cgiplus
</Directory>
<Directory $d/auth>
    CGIPassAuth On
</Directory>
<Location /compat/>
    SetHandler cgi-script
    CGIplusCompat on
    CGIplusMode cgiplus
</Location>
<Location /compatc/>
    SetHandler cgi-script
    CGIplusCompat on
</Location>
CONF
ok t_cmp($up, 1, 'a private httpd with mod_cgid and mod_cgiplus');

# ---------------------------------------------------------------------------
# The generator: a small LCG (fixed seed, the same requests on any perl).
my $seed = 3752;
# its high bits: an LCG's low bits repeat with a short period
sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return int(($seed >> 7) * $_[0] / 16777216) }
sub pick { return $_[rnd(scalar @_)] }

my @pinfo = ('', '', '/a/b', '/sp%20ace', '/%C3%A9t%C3%A9/%E2%82%AC', '//double//slash',
             '/trailing.', '/dots./..x', '/a/./b/../c', '/%7Euser', '/a;b=c', '/+plus', '/%2B',
             '/x%25y', '/' . ('p' x 300), '/a/', "/raw\xc3\xa9", '/%0Anl', '/%0Dcr%0D%0A', '/a%3Fb');
# refused by httpd before any handler, the same by both (400, 404)
my @pinfo_bad = ('/a%2Fb', '/nul%00x', '/bad%zz', '/..', '/../../etc');
my @query = (undef, undef, '', 'a=b', 'a+b', '%2B', 'a=%20&b=', 'x=%00', 'q=%C3%A9', 'k=v&k=w',
             '=', 'a=b?c', 'l=' . ('x' x 7500), 'isindex+words', "raw=\xe9",
             'a=%0D%0AX-Injected:%201');
my @hosts = ("127.0.0.1:$port", '127.0.0.1', 'localhost', "[::1]:$port", '[::1]',
             'example.com.', "LocalHost:$port", '127.0.0.1:0');
my @ctypes = ('application/x-www-form-urlencoded', 'text/plain; charset="utf-8"', '', 'x/' . ('y' x 3000),
              "text/\xe9t\xe9", 'multipart/form-data; boundary=----abc');
my @extra = (
    ['X-Test', 'one'], ['X-Test', 'two'], ['Accept', 'text/html'], ['Accept', '*/*;q=0.1'],
    ['X_Under', 'dropped'], ['X-Under_score', 'dropped'], ['Proxy', 'http://evil.example/'],
    ['Authorization', 'Basic dXNlcjpwYXNz'], ['Cookie', 'a=1; b=2'], ['X-Long', 'L' x 7000],
    ['X-Bytes', "caf\xe9 \xff\x80"], ['X-Empty', ''], ['X-Tab', "a\tb"], ['X-Flag', 'set'],
    ['X-Forwarded-For', '10.0.0.1'], ['If-None-Match', '"x"'], ['Content-MD5', 'abc'],
    ['X-9digit', '9'], ['Transfer-Encoding-X', 'no'], ['HTTPS', 'on'], ['X-Path', '/etc/passwd'],
    ['User-Agent', 'fuzz/1.0'], ['Referer', 'http://127.0.0.1/x?y'], ['X-Dots.Name', 'd'],
    ['Expect', '100-continue'], ['X-Flag', 'again'], ['Gateway-Interface', 'CGI/9'],
    ['Path', '/tmp/evil'], ['Remote-User', 'admin'], ['Cgiplus-Eof', 'x'], ['X-Spaces', '  padded  '],
);

# A request: method, target, HTTP version, [header pairs], body (undef:
# none), how the body goes ('cl', 'chunked', 'none').
sub gen_request {
    my %r;
    $r{method} = pick(qw(GET GET GET HEAD POST POST PUT OPTIONS DELETE PATCH PROPFIND));
    $r{auth} = rnd(5) == 0;
    $r{missing} = !$r{auth} && rnd(10) == 0;
    my $p = rnd(8) == 0 ? pick(@pinfo_bad) : pick(@pinfo);
    $p .= pick(@pinfo) if rnd(4) == 0;
    # a request line over LimitRequestLine (414) now and then
    my $q = rnd(30) == 0 ? 'l=' . ('y' x 9000) : pick(@query);
    $r{tail} = $p . (defined $q ? "?$q" : '');
    $r{proto} = rnd(6) == 0 ? 'HTTP/1.0' : 'HTTP/1.1';
    my @h;
    push @h, ['Host', pick(@hosts)] if $r{proto} eq 'HTTP/1.1' || rnd(2);
    push @h, pick(@extra) for 1 .. rnd(6);
    push @h, ['X-Test', 'again'] if rnd(4) == 0;
    $r{headers} = \@h;
    if ($r{method} =~ /^(POST|PUT)$/ || rnd(8) == 0) {
        my $len = pick(0, 1, 3, 100, 5000, 70000);
        my $body = join '', map { chr(rnd(256)) } 1 .. ($len > 200 ? 200 : $len);
        $body = substr($body x (1 + int($len / 200)), 0, $len);
        $r{body} = $body;
        $r{how} = pick('cl', 'cl', 'cl', 'cl', 'chunked', 'chunked', 'cl-odd', 'cl-bad', 'nolen');
        $r{body} = '' if $r{how} eq 'nolen';    # neither a length nor chunks: no body
        $r{badcl} = pick('-1', '+5', '5, 5', '99999999999999999999', '0x10', '1 2');
        push @h, ['Content-Type', pick(@ctypes)] if rnd(3);
    } else {
        $r{how} = 'none';
        push @h, ['Content-Length', pick('0', '00')] if rnd(6) == 0;
        push @h, ['Content-Type', pick(@ctypes)] if rnd(6) == 0;
    }
    return \%r;
}

# The bytes of a request to /PREFIX/SCRIPT; keep-alive unless last.
sub wire {
    my ($r, $prefix, $script, $last) = @_;
    my $path = "/$prefix/" . ($r->{missing} ? "missing-$script/nofile" : ($r->{auth} ? 'auth/' : '') . $script)
        . $r->{tail};
    my $s = "$r->{method} $path $r->{proto}\r\n";
    $s .= "$_->[0]: $_->[1]\r\n" for @{ $r->{headers} };
    $s .= $last ? "Connection: close\r\n" : ($r->{proto} eq 'HTTP/1.0' ? "Connection: keep-alive\r\n" : '');
    my $b = $r->{body};
    if ($r->{how} eq 'cl') {
        $s .= 'Content-Length: ' . length($b) . "\r\n\r\n$b";
    } elsif ($r->{how} eq 'cl-odd') {
        # leading zeros: a valid length, as the same number
        $s .= 'Content-Length: 0' . length($b) . "\r\n\r\n$b";
    } elsif ($r->{how} eq 'cl-bad') {
        # refused by httpd (400) before any handler: no body follows
        $s .= "Content-Length: $r->{badcl}\r\n\r\n";
    } elsif ($r->{how} eq 'chunked') {
        $s .= "Transfer-Encoding: chunked\r\n\r\n";
        for (my $o = 0; $o < length $b; $o += 4000) {
            my $c = substr($b, $o, 4000);
            $s .= sprintf("%x\r\n%s\r\n", length $c, $c);
        }
        $s .= "0\r\n\r\n";
    } else {
        $s .= "\r\n";
    }
    return $s;
}

# Sends a group of requests on one connection; their responses (a missing
# one: code 0).
sub send_group {
    my ($group, $prefix, $script) = @_;
    my $sock = IO::Socket::INET->new(PeerAddr => $hp, Timeout => 30) or die "connect: $!";
    my $buf = '';
    my @res;
    local $SIG{ALRM} = sub { die "timeout\n" };
    alarm 60;
    for my $n (0 .. $#$group) {
        my $r = $group->[$n];
        print $sock wire($r, $prefix, $script, $n == $#$group);
        my $res = eval { read_response($sock, \$buf, $r->{method}) };
        push @res, $res // { code => 0, head => {}, body => '' };
        # a response that closes the connection (an error): the rest anew
        if (($res->{head}{connection} // '') =~ /close/i && $n < $#$group) {
            close $sock;
            $sock = IO::Socket::INET->new(PeerAddr => $hp, Timeout => 30) or die "connect: $!";
            $buf = '';
        }
    }
    alarm 0;
    close $sock;
    return @res;
}

# Groups: most a single request, some 2 to 5 on one kept-alive connection,
# each alternating the headers that make variables (X-Flag, Cookie,
# Authorization, a body) so the next request must not have them.
my @groups;
my $total = 0;
while ($total < $NREQ) {
    if (rnd(5) == 0) {
        my @g;
        for my $n (0 .. 1 + rnd(4)) {
            my $r = gen_request();
            $r->{proto} = 'HTTP/1.1';
            $r->{method} = 'GET' if $r->{method} eq 'HEAD' && $n % 2 == 0;
            if ($n % 2 == 0) {
                push @{ $r->{headers} }, ['X-Flag', "n$n"], ['Cookie', "c=$n"], ['Authorization', "Bearer t$n"],
                    ['X-Only-Even', 'yes'];
                @{ $r }{qw(method body how)} = ('POST', "body$n", 'cl');
            } else {
                $r->{headers} = [grep { $_->[0] !~ /^(X-Flag|Cookie|Authorization|Content-Type|Content-Length)$/i }
                                 @{ $r->{headers} }];
                @{ $r }{qw(method body how)} = ('GET', undef, 'none');
            }
            push @{ $r->{headers} }, ['Host', $hp] unless grep { $_->[0] eq 'Host' } @{ $r->{headers} };
            push @g, $r;
        }
        push @groups, \@g;
        $total += @g;
    } else {
        push @groups, [gen_request()];
        $total++;
    }
}

# ---------------------------------------------------------------------------
# The comparison.
sub env_of {
    my ($res) = @_;
    my %e;
    for (split /\n/, $res->{body}) {
        next unless /^([^=]+)=(.*)\z/s;
        my ($k, $v) = ($1, $2);
        $v =~ s/\\(.)/$1 eq 'n' ? "\n" : $1/ge;    # the dumps' escapes
        $e{$k} = $v;
    }
    return \%e;
}

# The same value, whichever kind: the kind's prefix and script named alike.
sub norm {
    my ($e, $prefix, $script) = @_;
    my %n;
    for my $k (keys %$e) {
        my $v = $e->{$k};
        $v =~ s{/\Q$prefix\E/missing-\Q$script\E/}{/K/missing-S/}g;
        $v =~ s{/\Q$prefix\E/(auth/|)\Q$script\E}{/K/$1S}g;
        $v =~ s{\Q$d\E/(auth/|)\Q$script\E}{D/$1S}g;
        $v =~ s{^/\Q$prefix\E/}{/K/} if $k eq 'CONTEXT_PREFIX';
        $n{$k} = $v;
    }
    return \%n;
}

# The CGIplus protocol's own variables (docs/PROTOCOL.md): a script using
# the library sees them, as any CGIplus worker; the engines hide them
# (docs/APPS.md, "Engines"), plain CGI and FastCGI get none.
my @protocol = qw(CGIPLUSEOF CGIPLUSESC CGIPLUSEOT CGIPLUSIN);
my (%diff, %status, %doc, %auth, $proxy, %ref_doc, %seen);
my $pairs = 0;
my @seen_ref;

sub show {
    my ($s) = @_;
    return '(unset)' unless defined $s;
    $s =~ s/([^\x20-\x7e])/sprintf '\\x%02x', ord $1/ge;
    return length $s > 80 ? substr($s, 0, 60) . '...(' . length($s) . ')' : $s;
}

# Compares one request's environments, mod_cgid's ($ae) and the kind's
# ($be), both hashes of the variables present (for HEAD: names only,
# values '1'). What the docs say differs is checked here as documented,
# then taken out; the rest must be equal.
sub compare {
    my ($k, $r, $ae, $be, $label, $head) = @_;
    my ($prefix, $script, $what, $proto, $cl_none) = @$k;
    my $kn = "$prefix/$script";
    # a dump there is (an empty one on both sides would compare equal)
    for ([mod_cgid => $ae], [$kn => $be]) {
        push @{ $diff{$kn} }, "$label: no environment from $_->[0]"
            unless exists $_->[1]{GATEWAY_INTERFACE} && exists $_->[1]{REQUEST_METHOD};
    }
    # what came and went on a kept-alive connection, for the record
    $seen{ exists $ae->{FLAGGED} ? 'flagged' : 'unflagged' }++ unless $head;
    # REMOTE_PORT: the client's port, another connection's for each run
    delete $ae->{REMOTE_PORT};
    delete $be->{REMOTE_PORT};
    for my $p (@protocol) {
        my $has = exists $be->{$p} ? 1 : 0;
        push @{ $doc{$kn} }, "$label: $p " . ($has ? 'set' : 'unset') if $has != $proto;
        delete $be->{$p};
    }
    # README, CGIplusSetEnv: the scope's variables, in every kind; a
    # FastCGI application has them in its process's environment, and
    # FCGI.pm gives a request's %ENV the request's variables alone, as
    # under mod_fcgid's FcgidInitialEnv (X-Start-Conf, checked below)
    my $conf = $prefix eq 'fcgi' ? undef : 'from-cgiplus';
    push @{ $doc{$kn} }, "$label: FUZZ_CONF " . show($be->{FUZZ_CONF})
        unless $head ? !exists $be->{FUZZ_CONF} == !defined $conf
                     : ($be->{FUZZ_CONF} // '(unset)') eq ($conf // '(unset)');
    delete $be->{FUZZ_CONF};
    # PATH: the runner's fixed one (docs/cgi-compat.md, "The environment")
    push @{ $doc{$kn} }, "$label: PATH " . show($be->{PATH})
        unless $head || ($be->{PATH} // '') eq '/usr/local/bin:/usr/bin:/bin';
    delete $ae->{PATH};
    delete $be->{PATH};
    # libfcgi's own, from the BEGIN_REQUEST record, under any FastCGI server
    if ($prefix eq 'fcgi') {
        push @{ $doc{$kn} }, "$label: FCGI_ROLE " . show($be->{FCGI_ROLE})
            unless $head || ($be->{FCGI_ROLE} // '') eq 'RESPONDER';
        delete $be->{FCGI_ROLE};
    }
    # Never HTTP_PROXY (httpoxy), in any kind, the reference too.
    $proxy .= "$kn $label\n" if exists $be->{HTTP_PROXY} || exists $ae->{HTTP_PROXY};
    # Authorization: passed (as httpd merged it) only with CGIPassAuth On
    my @ah = map { $_->[1] } grep { lc $_->[0] eq 'authorization' } @{ $r->{headers} };
    if (@ah && !$head) {
        my $want = $r->{auth} ? join(', ', @ah) : '(unset)';
        push @{ $auth{$kn} }, "$label: HTTP_AUTHORIZATION " . show($be->{HTTP_AUTHORIZATION})
            unless ($be->{HTTP_AUTHORIZATION} // '(unset)') eq $want;
    }
    # docs/PROTOCOL.md, record mode: a CR or LF in a value (PATH_INFO
    # from %0A) reaches a library script that did not ask for struct mode
    # as a space (the engines get struct-mode records: verbatim).
    if ($proto && !$head) {
        for my $v (grep { ($ae->{$_} // '') =~ /[\r\n]/ } keys %$ae) {
            (my $want = $ae->{$v}) =~ tr/\r\n/  /;
            push @{ $doc{$kn} }, "$label: record mode: $v " . show($be->{$v}) . ', not ' . show($want)
                unless ($be->{$v} // '') eq $want;
            $ref_doc{crlf}++;
            delete $ae->{$v};
            delete $be->{$v};
        }
    }
    my $len = length($r->{body} // '');
    if ($r->{missing} && ($r->{how} ne 'none' || exists $ae->{CONTENT_LENGTH})) {
        # docs/cgi-compat.md, "The environment": a CGI ErrorDocument gets
        # the exact length of what is left of the failed request's body
        # (none when nothing is: a worker's record its 0), mod_cgid the
        # failed request's length, whatever is left (BODY, compared too,
        # is what each read); never HTTP_TRANSFER_ENCODING (the body the
        # script reads is not chunked)
        my ($left) = ($be->{BODY} // '') =~ /^(\d+):/;
        my $want = $left ? $left : $cl_none // '(unset)';
        push @{ $doc{$kn} }, "$label: ErrorDocument: CONTENT_LENGTH " . show($be->{CONTENT_LENGTH})
            . ', HTTP_TRANSFER_ENCODING ' . show($be->{HTTP_TRANSFER_ENCODING}) . ", $left bytes left"
            unless ($head || ($be->{CONTENT_LENGTH} // '(unset)') eq $want)
                && !exists $be->{HTTP_TRANSFER_ENCODING};
        $ref_doc{errdoc}++ if !$head && ($ae->{CONTENT_LENGTH} // '') ne ($be->{CONTENT_LENGTH} // '');
        delete $ae->{$_}, delete $be->{$_} for qw(CONTENT_LENGTH HTTP_TRANSFER_ENCODING);
    } elsif ($r->{how} eq 'chunked' && !$len) {
        # an empty chunked body is no body: as a GET (docs/cgi-compat.md,
        # "The environment"; t/3j_cgi_content_length.t), no
        # HTTP_TRANSFER_ENCODING (the body the script reads is not chunked)
        $ref_doc{chunked}++ if exists $ae->{HTTP_TRANSFER_ENCODING} && !exists $ae->{CONTENT_LENGTH};
        my $want = $cl_none // '(unset)';
        push @{ $doc{$kn} }, "$label: empty chunked: CONTENT_LENGTH " . show($be->{CONTENT_LENGTH})
            . ', HTTP_TRANSFER_ENCODING ' . show($be->{HTTP_TRANSFER_ENCODING})
            unless ($head ? (exists $be->{CONTENT_LENGTH} ? 'x' : '(unset)') eq ($cl_none ? 'x' : '(unset)')
                          : ($be->{CONTENT_LENGTH} // '(unset)') eq $want)
                && !exists $be->{HTTP_TRANSFER_ENCODING};
        delete $ae->{HTTP_TRANSFER_ENCODING};
        delete $be->{CONTENT_LENGTH};
    } elsif ($r->{how} eq 'chunked') {
        # docs/cgi-compat.md, "Chunked request bodies": mod_cgi passes
        # HTTP_TRANSFER_ENCODING and no length, mod_cgiplus the exact
        # CONTENT_LENGTH and no HTTP_TRANSFER_ENCODING.
        $ref_doc{chunked}++ if exists $ae->{HTTP_TRANSFER_ENCODING} && !exists $ae->{CONTENT_LENGTH};
        push @{ $doc{$kn} }, "$label: chunked: CONTENT_LENGTH " . show($be->{CONTENT_LENGTH})
            . ', HTTP_TRANSFER_ENCODING ' . show($be->{HTTP_TRANSFER_ENCODING})
            unless ($head ? exists $be->{CONTENT_LENGTH} : ($be->{CONTENT_LENGTH} // '') eq $len)
                && !exists $be->{HTTP_TRANSFER_ENCODING};
        delete $ae->{HTTP_TRANSFER_ENCODING};
        delete $be->{CONTENT_LENGTH};
    } elsif ($r->{how} eq 'cl-odd'
             || ($r->{how} eq 'none' && grep { $_->[0] eq 'Content-Length' } @{ $r->{headers} })) {
        # docs/cgi-compat.md, "The environment": a length written with
        # leading zeros reaches the script as the runner's decimal number;
        # mod_cgi passes the header as written.
        my ($sent) = $r->{how} eq 'cl-odd' ? ("0$len")
                   : map { $_->[1] } grep { $_->[0] eq 'Content-Length' } @{ $r->{headers} };
        $ref_doc{zeros}++ if ($ae->{CONTENT_LENGTH} // '') eq $sent && $sent =~ /^0./;
        push @{ $doc{$kn} }, "$label: Content-Length $sent: CONTENT_LENGTH " . show($be->{CONTENT_LENGTH})
            unless $head || ($be->{CONTENT_LENGTH} // '') eq $sent + 0;
        delete $ae->{CONTENT_LENGTH};
        delete $be->{CONTENT_LENGTH};
    } elsif (!exists $ae->{CONTENT_LENGTH} && defined $cl_none) {
        # A native CGIplus worker and a FastCGI application get CONTENT_LENGTH
        # 0 for a request without one (docs/cgi-compat.md, last paragraph;
        # docs/APPS.md: a FastCGI request carries an exact CONTENT_LENGTH).
        push @{ $doc{$kn} }, "$label: no length: CONTENT_LENGTH " . show($be->{CONTENT_LENGTH})
            unless $head ? exists $be->{CONTENT_LENGTH} : ($be->{CONTENT_LENGTH} // '') eq $cl_none;
        delete $be->{CONTENT_LENGTH};
    }
    for my $v (sort keys %{{ %$ae, %$be }}) {
        my ($x, $y) = ($ae->{$v}, $be->{$v});
        next if defined $x && defined $y && $x eq $y;
        push @{ $diff{$kn} }, "$label: $v mod_cgid " . show($x) . ', ' . show($y);
    }
}

for my $g (@groups) {
    my %ref;
    for my $k (@kinds) {
        my ($prefix, $script) = @$k;
        # the reference: the same script under mod_cgid
        unless ($ref{$script}) {
            $ref{$script} = [send_group($g, 'cgid', $script)];
            push @seen_ref, @{ $ref{$script} } if $script eq 'env.pl';
        }
        my @got = send_group($g, $prefix, $script);
        for my $n (0 .. $#$g) {
            my ($r, $a, $b) = ($g->[$n], $ref{$script}[$n], $got[$n]);
            $pairs++;
            my $label = "$r->{method} " . ($r->{auth} ? 'auth/' : $r->{missing} ? 'missing/' : '')
                . "$r->{tail} $r->{proto}"
                . ($r->{how} ne 'none' ? " body($r->{how}," . length($r->{body} // '') . ')' : '')
                . ' [' . join(' ', map { $_->[0] } @{ $r->{headers} }) . ']'
                . (@$g > 1 ? " (keep-alive #$n)" : '');
            $label = substr($label, 0, 200) . '...' if length $label > 200;
            if ($a->{code} != $b->{code}) {
                push @{ $status{"$k->[0]/$script"} }, "$label: mod_cgid $a->{code}, $b->{code}";
                next;
            }
            # the script's answer: 200, or 404 from its ErrorDocument run
            next unless $a->{code} == 200 || ($r->{missing} && $a->{code} == 404 && $a->{head}{'x-env-names'});
            if ($r->{method} eq 'HEAD') {
                my %an = map { $_ => 1 } split /,/, $a->{head}{'x-env-names'} // '';
                my %bn = map { $_ => 1 } split /,/, $b->{head}{'x-env-names'} // '';
                compare($k, $r, \%an, \%bn, $label, 1);
                next;
            }
            push @{ $doc{"$prefix/$script"} }, "$label: X-Start-Conf " . show($b->{head}{'x-start-conf'})
                if $prefix eq 'fcgi' && ($b->{head}{'x-start-conf'} // '') ne 'from-cgiplus';
            my $ae = norm(env_of($a), 'cgid', $script);
            my $be = norm(env_of($b), $prefix, $script);
            compare($k, $r, $ae, $be, $label, 0);
        }
    }
}

my $req = 0;
$req += @$_ for @groups;
my $ok200 = grep { $_->{code} == 200 } @seen_ref;
my %codes;
$codes{ $_->{code} }++ for @seen_ref;
t_debug('mod_cgid\'s answers to env.pl: ' . join(', ', map { "$_ x$codes{$_}" } sort keys %codes));
t_debug("$req requests x " . scalar(@kinds) . " kinds ($pairs pairs); mod_cgid answered 200 to $ok200");
ok t_cmp($ok200 > $req / 2 ? 'most' : "only $ok200", 'most', 'mod_cgid ran the script for most requests');

sub report {
    my ($list) = @_;
    return '' unless $list && @$list;
    my $n = @$list;
    my @l = @$list[0 .. ($n > 25 ? 24 : $n - 1)];
    return join("\n", @l) . ($n > 25 ? "\n... and " . ($n - 25) . ' more' : '');
}
for my $k (@kinds) {
    my $kn = "$k->[0]/$k->[1]";
    ok t_cmp(report($status{$kn}), '', "$k->[2]: the same status as mod_cgid, each request");
    ok t_cmp(report($diff{$kn}), '', "$k->[2]: the same environment as mod_cgid, each request");
    ok t_cmp(report($doc{$kn}), '', "$k->[2]: the documented differences, each as documented");
    ok t_cmp(report($auth{$kn}), '', "$k->[2]: Authorization only with CGIPassAuth On");
}
ok t_cmp($proxy // '', '', 'a Proxy header never becomes HTTP_PROXY');
ok t_cmp(join(' ', map { $ref_doc{$_} ? $_ : () } qw(chunked zeros crlf errdoc)), 'chunked zeros crlf errdoc',
         "mod_cgid: a chunked body has HTTP_TRANSFER_ENCODING, no length; a length's zeros kept; "
         . "a line end in PATH_INFO; an ErrorDocument has the failed request's length, the body gone");
my $gn = grep { @$_ > 1 } @groups;
ok t_cmp($gn > 5 && ($seen{flagged} // 0) > 20 && ($seen{unflagged} // 0) > 20 ? 'some' : 'few', 'some',
         "kept-alive sequences ($gn), a request variable (SetEnvIf's FLAGGED) set in "
         . ($seen{flagged} // 0) . ' compared requests, unset in ' . ($seen{unflagged} // 0));
ok t_cmp(scalar(grep { $_->{code} == 404 } @seen_ref) ? 'yes' : 'no', 'yes',
         'some requests refused by httpd before the script (404: %2F, %00)');

kinds_stop($dir, $fpm);
