# A randomized differential test of what a PHP script sees and sends: a
# php pool (CGIplusEngine php, direct and relayed) against php-fpm behind
# mod_proxy_fcgi as Debian's php8.2-fpm.conf sets it up (a private php-fpm
# on a socket in the test's directory). 300 requests, made from a fixed
# seed (the same ones every run): paths with PATH_INFO (encoded slashes
# and spaces, UTF-8, double slashes, dots), query strings (repeated keys,
# arrays, odd encodings), GET, HEAD, POST (urlencoded, multipart with a
# file, JSON), PUT, DELETE, OPTIONS, PATCH, HTTP/1.0, odd Hosts, headers
# (cookies, Basic and Bearer Authorization, odd Content-Types,
# X-Forwarded-*, a Proxy header, duplicated headers, conditions, Range,
# Max-Forwards), scripts in subdirectories, a directory's index.php (and a
# directory named d.php), an Alias, front controllers behind mod_rewrite
# (.htaccess and the virtual host's rules), FallbackResource and a PHP
# ErrorDocument. Each side's
# answer: status line, headers (the date, Server and framing aside), and
# the script's report (JSON): $_SERVER whole, $_GET, $_POST, $_COOKIE,
# $_FILES, php://input, getcwd(), __FILE__, headers_list(); the script
# sets a status, Location or header when the query asks. php-fpm's answer
# is the reference; the differences docs/APPS.md lists ("PHP") are
# asserted where they arise, each met at least once, not skipped.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use JSON::PP ();
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_dir);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use RawHTTP qw(raw_request);
use AppTest qw(write_file);

my $N = 300;
my @sides = qw(pool poolr);
plan tests => 2 + $N * @sides + 3, need php_need('needs mod_rewrite' => -f PrivateHttpd::libexec() . '/mod_rewrite.so');

my $dir = private_dir('phpdifffuzz');
my ($pport, $prport, $fport) = free_ports(3);
my $root = "$dir/root";
my $aliased = "$dir/aliased";
mkdir $_, 0755 for $root, $aliased, map({ "$root/$_" } qw(sub sub/deeper dir front vfront ed fb d.php)), "$aliased/sub";

# The report: what applications read of a request, keys sorted, and the
# answer's status and headers as the query asks them set.
my $report = <<'PHP';
<?php
if (isset($_GET['_code'])) http_response_code((int)$_GET['_code']);
if (isset($_GET['_loc'])) header('Location: ' . $_GET['_loc']);
if (isset($_GET['_status'])) header('Status: ' . $_GET['_status']);
if (isset($_GET['_hdr'])) header('X-Set: ' . $_GET['_hdr']);
if (isset($_GET['_cookie'])) setcookie('set', $_GET['_cookie']);
if (isset($_GET['_www'])) header('WWW-Authenticate: Basic realm="' . $_GET['_www'] . '"');
if (isset($_GET['_lm'])) header('Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT');
if (isset($_GET['_etag'])) header('ETag: "v1"');
header('Content-Type: ' . ($_GET['_ct'] ?? 'application/json'));
if (isset($_GET['_nobody'])) exit;
$s = $_SERVER;
unset($s['REQUEST_TIME'], $s['REQUEST_TIME_FLOAT'], $s['REMOTE_PORT']);
// a file's tmp_name is the side's own: whether it is an upload, and its digest
function files($a) {
    $o = [];
    foreach ($a as $k => $v)
        $o[$k] = $k === 'tmp_name' ? (is_array($v) ? array_map(function ($t) {
                     return $t === '' ? '' : (is_uploaded_file($t) ? 'uploaded ' . md5_file($t) : 'not uploaded'); }, $v)
                   : ($v === '' ? '' : (is_uploaded_file($v) ? 'uploaded ' . md5_file($v) : 'not uploaded')))
                 : (is_array($v) ? files($v) : $v);
    return $o;
}
$files = files($_FILES);
$in = file_get_contents('php://input');
$out = ['server' => $s, 'get' => $_GET, 'post' => $_POST, 'cookie' => $_COOKIE, 'files' => $files,
        'request' => $_REQUEST, 'input' => strlen($in) . ' ' . md5($in), 'cwd' => getcwd(),
        'file' => __FILE__, 'dir' => __DIR__, 'included' => get_included_files(),
        'code' => http_response_code(), 'headers' => headers_list(),
        'env' => ['HTTP_PROXY' => getenv('HTTP_PROXY'), 'SCRIPT_NAME' => getenv('SCRIPT_NAME')]];
function sorted($a) { if (!is_array($a)) return $a; ksort($a, SORT_STRING); return array_map('sorted', $a); }
echo json_encode(sorted($out), JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE), "\n";
PHP
my @scripts = (qw(x.php sub/y.php sub/deeper/z.php dir/index.php front/index.php front/real.php
                  vfront/index.php vfront/real.php fb/index.php d.php/index.php), 'sp ace.php', "caf\xc3\xa9.php", 'x.phtml');
write_file("$root/$_", $report, 0644) for @scripts;
write_file("$aliased/$_", $report, 0644) for qw(x.php index.php sub/y.php);
write_file("$root/$_", "static $_\n", 0644) for qw(front/static.txt dir/static.txt ed/static.txt);
# an hour old: httpd makes a file's ETag weak within a second of its change
utime(time - 3600, time - 3600, "$root/$_") for qw(front/static.txt dir/static.txt ed/static.txt);
my $front = <<'HT';
RewriteEngine On
RewriteCond %{REQUEST_FILENAME} !-f
RewriteRule ^ index.php [L]
HT
write_file("$root/front/.htaccess", $front, 0644);
write_file("$aliased/.htaccess", "RewriteEngine On\nRewriteBase /al/\nRewriteCond %{REQUEST_FILENAME} !-f\n"
                                 . "RewriteCond %{REQUEST_FILENAME} !-d\nRewriteRule ^ index.php [L]\n", 0644);

my $common = <<"CONF";
    DocumentRoot $root
    AllowEncodedSlashes NoDecode
    DirectoryIndex index.php index.html
    Alias /al/ $aliased/
    <Directory $root>
        Require all granted
        AllowOverride All
    </Directory>
    <Directory $aliased>
        Require all granted
        AllowOverride All
    </Directory>
    RewriteEngine On
    RewriteCond %{DOCUMENT_ROOT}%{REQUEST_URI} !-f
    RewriteRule ^/vfront/ /vfront/index.php [L]
    <Directory $root/fb>
        FallbackResource /fb/index.php
    </Directory>
    <Directory $root/ed>
        ErrorDocument 404 /sub/y.php
        ErrorDocument 405 /sub/y.php
    </Directory>
CONF
my $pool = "$common    <DirectoryMatch \"^($root|$aliased)\">\n        CGIplusEngine php\n"
         . "        CGIplusMaxWorkers 1\n    </DirectoryMatch>\n";
my $fpm = php_fpm($dir, 1);
my $what = 'a private httpd with a php pool and php-fpm';
php_httpd($dir, $pport, [$prport, $fport], [qw(rewrite dir setenvif)], <<"CONF", $what);
<VirtualHost 127.0.0.1:$pport>
$pool</VirtualHost>
<VirtualHost 127.0.0.1:$prport>
$pool    CGIplusDirect off
</VirtualHost>
# Debian's php8.2-fpm.conf, its socket the private php-fpm's
<VirtualHost 127.0.0.1:$fport>
$common    SetEnvIfNoCase ^Authorization\$ "(.+)" HTTP_AUTHORIZATION=\$1
    <FilesMatch ".+\\.ph(?:ar|p|tml)\$">
        SetHandler "proxy:unix:$dir/fpm.sock|fcgi://localhost"
    </FilesMatch>
</VirtualHost>
CONF

# The requests, from a fixed seed: each [method, path, [headers], body,
# {raw_request's options}], PORT in the Host the side's port.
srand(5905);
sub pick { return $_[int rand @_] }
sub chance { return rand() < $_[0] }
my @targets = ('/x.php', '/sub/y.php', '/sub/deeper/z.php', '/dir/', '/dir', '/dir/index.php', '/dir/static.txt',
               '/front/', '/front/some/route', '/front/real.php', '/front/static.txt', '/front/a%2Fb',
               '/vfront/', '/vfront/some/route', '/vfront/real.php', '/al/x.php', '/al/', '/al/some/route',
               '/al/sub/y.php', '/sp%20ace.php', '/caf%C3%A9.php', '/missing.php', '/x.phtml',
               '//x.php', '/./x.php', '/sub/../x.php', '/%78.php', '/sub%2Fy.php', '/X.php', '/fb/', '/fb/a/route',
               '/fb/index.php', '/ed/nothing', '/ed/missing.php', '/ed/static.txt', '/d.php/', '/d.php',
               '/d.php/index.php', '/x.php.', '/x.php%00', "/x.php/\xc3\xa9");
my @infos = ('', '', '/', '/a/b', '/a/b/', '/a%2Fb', '/a%20b', '/a+b', '/caf%C3%A9', '/%E2%82%AC/x',
             '//double//slash', '/./dot/../x', '/a/..', '/x.php', '/.hidden', '/a;b=c', '/%25', '/a%3Fb',
             '/a%23b', '/~user', '/index.php/more');
my @queries = ('', '?', '?a=1', '?a=1&a=2', '?a[]=1&a[]=2', '?a[x]=1&a[y][]=2', '?q=a+b%20c',
               '?%C3%A9=%E2%82%AC', '?=x', '?a', '?a=1;b=2', '?x=%ZZ', '?&&a=&', '?a.b=1&a%20c=2',
               '?_code=404', '?_code=201&_loc=/x.php', '?_loc=/front/x', '?_loc=http://example.com/y',
               '?_code=200&_loc=/x.php', '?_status=404%20Gone', '?_status=299%20Custom', '?_hdr=v%20w',
               '?_cookie=a%20b', '?_code=302&_loc=/sub/y.php', '?_code=500', '?_code=304', '?_code=401&_www=r',
               '?_lm=1', '?_etag=1', '?_lm=1&_etag=1', '?_ct=text/html', '?_ct=', '?_nobody=1', '?_code=204&_nobody=1',
               '?_code=404&_nobody=1', '?_ct=image/png&_nobody=1', "?\xc3\xa9=1", '?a=%00b');
my @extra = (['Cookie', 'a=1; b=2'], ['Cookie', 'a=1; a=2; c[x]=3; d%20e=f%20g'], ['Cookie', 'PHPSESSID=abc; empty='],
             ['Authorization', 'Basic ' . 'YW5uOnNlY3JldA=='], ['Authorization', 'Basic ' . 'Ym9iOnB3OndpdGg6Y29sb25z'],
             ['Authorization', 'Bearer tok.123'], ['X-Forwarded-For', '203.0.113.7, 10.0.0.1'],
             ['X-Forwarded-Proto', 'https'], ['X-Forwarded-Host', 'example.org'], ['Proxy', 'http://evil.example:8080'],
             ['X-Dup', '1', 'X-Dup', '2'], ['Accept-Language', 'fr-CH, fr;q=0.9'], ['X_Under', 'score'],
             ['User-Agent', "Mozilla/5.0 (caf\xc3\xa9)"], ['Referer', 'http://example.com/a?b=c'],
             ['If-None-Match', '"v1"'], ['X-Empty', ''], ['Accept-Encoding', 'gzip'], ['Content-Type', 'text/plain'],
             ['Forwarded', 'for=192.0.2.60;proto=http'], ['Https', 'on'], ['X-Requested-With', 'XMLHttpRequest'],
             ['Range', 'bytes=0-9'], ['Range', 'bytes=5-'], ['If-Modified-Since', 'Mon, 01 Jan 2024 00:00:00 GMT'],
             ['If-Unmodified-Since', 'Mon, 01 Jan 2024 00:00:00 GMT'], ['If-None-Match', '*'], ['If-Match', '"v2"'],
             ['Authorization', 'Basic !!!'], ['Authorization', 'Basic YW5u'],
             ['Authorization', 'Digest username="ann", realm="r"'], ['Cookie', 'a=1', 'Cookie', 'b=2'],
             ['Content-Length', '0'], ['Max-Forwards', '0'], ['Max-Forwards', '3'], ['Origin', 'http://example.com']);
my @hosts = (('127.0.0.1:PORT') x 3, 'EXAMPLE.org', 'example.org.', 'example.org:81', '[::1]:PORT', '');
my @reqs;
for (1 .. $N) {
    my $t = pick(@targets);
    my $path = $t . ($t =~ /\.php$/ && chance(0.5) ? pick(@infos) : '') . pick(@queries);
    my $m = pick(qw(GET GET GET GET HEAD POST POST POST PUT DELETE OPTIONS PATCH));
    my (@h, $body);
    push @h, @{ pick(@extra) } for 1 .. int rand 3;
    if ($m =~ /^(POST|PUT|PATCH)$/) {
        my $k = pick(qw(form form multipart json text none oddform));
        if ($k eq 'form' || $k eq 'oddform') {
            push @h, 'Content-Type', $k eq 'form' ? 'application/x-www-form-urlencoded'
                : pick('APPLICATION/X-WWW-FORM-URLENCODED', 'application/x-www-form-urlencoded; charset=UTF-8');
            $body = pick('a=1&b=two+words', 'a[]=1&a[]=2&c[k]=v', "t=caf%C3%A9&e=", 'x', '');
        } elsif ($k eq 'multipart') {
            my $b = 'XyZ' . int rand 1000;
            push @h, 'Content-Type', "multipart/form-data; boundary=$b";
            $body = "--$b\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\ncaf\xc3\xa9\r\n"
                  . "--$b\r\nContent-Disposition: form-data; name=\"f[]\"; filename=\"a b.txt\"\r\n"
                  . "Content-Type: text/plain\r\n\r\n" . ('z' x int rand 3000) . "\r\n--$b--\r\n";
        } elsif ($k eq 'json') {
            push @h, 'Content-Type', 'application/json';
            $body = '{"a":[1,2],"b":"c"}';
        } elsif ($k eq 'text') {
            push @h, 'Content-Type', pick('text/plain', 'application/octet-stream', 'multipart/form-data', 'foo');
            $body = 'plain body ' x int rand 5;
        }
    } elsif (chance(0.05)) {
        $body = '';    # a GET with Content-Length: 0
    }
    my %o = (host => pick(@hosts));
    $o{proto} = 'HTTP/1.0' if chance(0.1);
    $o{host} = '127.0.0.1:PORT' if $o{host} eq '' && !$o{proto};
    push @reqs, [$m, $path, \@h, $body, \%o];
}

sub answer {
    my ($port, $r) = @_;
    my ($m, $path, $h, $body, $o) = @$r;
    (my $host = $o->{host}) =~ s/PORT/$port/;
    my $a = raw_request("127.0.0.1:$port", $m, $path, $h, $body, { %$o, host => $host });
    my @heads = grep { $_->[0] !~ /^(date|server|content-length|transfer-encoding|connection|keep-alive)$/i }
                @{ $a->{headers} };
    my %o = (status => $a->{status_line}, heads => join("\n", map { "$_->[0]: " . ($_->[1] // '') } @heads),
             body => $a->{body});
    # the side's own port, where the request's Host or httpd names it
    $o{$_} =~ s/:$port\b/:PORT/g for qw(heads body);
    $o{body} =~ s/"SERVER_PORT": "$port"/"SERVER_PORT": "PORT"/;
    $o{body} =~ s/(Server at 127\.0\.0\.1 Port )$port/$1PORT/g;
    $o{report} = eval { JSON::PP->new->decode($o{body}) } if $a->{body} =~ /^\{/;
    return \%o;
}

# Flattened: "server.SCRIPT_NAME" => value.
sub flat {
    my ($v, $pre, $out) = @_;
    if (ref $v eq 'HASH') { flat($v->{$_}, "$pre.$_", $out) for keys %$v }
    elsif (ref $v eq 'ARRAY') { flat($v->[$_], "$pre\[$_]", $out) for 0 .. $#$v }
    else { $out->{$pre} = defined $v ? (ref $v ? ($v ? 'true' : 'false') : "$v") : 'null' }
    return $out;
}

# The differences of $got from $ref, as lines.
sub differences {
    my ($got, $ref) = @_;
    my @d;
    push @d, "status: '$got->{status}' vs php-fpm's '$ref->{status}'" if $got->{status} ne $ref->{status};
    push @d, "headers:\n  $got->{heads}\n  vs php-fpm's\n  $ref->{heads}" if $got->{heads} ne $ref->{heads};
    if ($got->{report} && $ref->{report}) {
        my ($g, $f) = (flat($got->{report}, '', {}), flat($ref->{report}, '', {}));
        for my $k (sort { $a cmp $b } keys %{ { %$g, %$f } }) {
            next if ($g->{$k} // "\0unset") eq ($f->{$k} // "\0unset");
            push @d, "$k: " . ($g->{$k} // '(unset)') . ' vs php-fpm\'s ' . ($f->{$k} // '(unset)');
        }
    } elsif ($got->{body} ne $ref->{body}) {
        push @d, "body:\n" . substr($got->{body}, 0, 400) . "\n  vs php-fpm's\n" . substr($ref->{body}, 0, 400);
    }
    return @d;
}

my $vars = Apache::Test::config()->{vars};
my $home = (getpwnam $vars->{user})[7];
# The differences docs/APPS.md lists ("PHP", "Where php-fpm and mod_fcgid
# differ"), each checked in its exact form where it arises and counted in
# %met, then set aside. $got and $ref: a side's answer and php-fpm's, for
# request $r. Returns what is left of $ref to compare with.
my %met;
sub documented {
    my ($got, $ref, $r) = @_;
    my ($m, $path, $h) = @$r;
    my ($g, $f) = map { $_->{report} ? $_->{report}{server} : undef } $got, $ref;
    # a .php that is not there: php-fpm's own 404 (no ErrorDocument), a
    # php pool's httpd's (the scope's ErrorDocument, in /ed/ a PHP one)
    if ($ref->{status} eq 'HTTP/1.1 404 Not Found' && $ref->{body} =~ /\A(File not found\.\n)?\z/
        && $ref->{heads} eq 'Content-Type: text/html; charset=UTF-8') {
        $met{'missing .php'}++;
        return $got if $got->{status} eq $ref->{status}
            && ($m eq 'HEAD' ? $got->{heads} =~ m{^Content-Type: (text/html; charset=iso-8859-1|application/json)\z}
                : $path =~ m{^/ed/} ? ($g && $g->{REDIRECT_STATUS} eq '404' && $g->{SCRIPT_NAME} eq '/sub/y.php')
                : $got->{body} =~ m{<title>404 Not Found</title>});
        return $ref;
    }
    # a .phtml: php-fpm's security.limit_extensions refuses it, a php pool runs it
    if ($ref->{status} eq 'HTTP/1.1 403 Forbidden' && $ref->{body} =~ /\A(Access denied\.\n)?\z/ && $path =~ /\.phtml/) {
        $met{'.phtml'}++;
        return $got if $m eq 'HEAD' || ($g && $g->{SCRIPT_FILENAME} =~ /\.phtml\z/);
        return $ref;
    }
    # Max-Forwards: mod_proxy, a proxy, counts it down, and at 0 answers
    # itself (an OPTIONS) or refuses the request (an ErrorDocument's too);
    # a php pool is no proxy: PHP sees it as sent, and runs
    my %hh = @$h;
    if (defined $hh{'Max-Forwards'}) {
        $met{'Max-Forwards'}++;
        if ($hh{'Max-Forwards'} eq '0') {
            return $ref unless $ref->{body} =~ m{Max-Forwards has reached zero|400 Proxy Error}
                || $path =~ m{^/ed/} && $ref->{body} =~ m{error was encountered while trying to use an ErrorDocument}
                || $m eq 'OPTIONS' && $ref->{status} eq 'HTTP/1.1 200 OK' && $ref->{heads} =~ /^Allow: /m;
            return $got if $got->{status} !~ /Proxy Error/ && $got->{body} !~ /Max-Forwards|Proxy Error/
                && (!$g || $g->{HTTP_MAX_FORWARDS} eq '0');
            return $ref;
        }
    }
    return $ref unless $g && $f;
    my %f = %$f;
    if (defined $hh{'Max-Forwards'} && $f{HTTP_MAX_FORWARDS} eq $hh{'Max-Forwards'} - 1
        && $g->{HTTP_MAX_FORWARDS} eq $hh{'Max-Forwards'}) {
        $f{HTTP_MAX_FORWARDS} = $g->{HTTP_MAX_FORWARDS};
    }
    # HOME and USER: php-fpm sets them in its children; a php pool does not
    if (($f{USER} // '') eq $vars->{user} && ($f{HOME} // '') eq $home && !exists $g->{USER} && !exists $g->{HOME}) {
        $met{'HOME, USER'}++;
        delete @f{qw(HOME USER)};
    }
    # PATH: the pool's CGIplusSetEnv one, php-fpm's from httpd's environment
    if (($g->{PATH} // '') eq '/usr/local/bin:/usr/bin:/bin' && exists $f{PATH}) {
        $met{PATH}++;
        $f{PATH} = $g->{PATH};
    }
    # php-cgi's $_SERVER holds its environment: its FastCGI settings
    if (($g->{PHP_FCGI_CHILDREN} // '') eq '0' && ($g->{PHP_FCGI_MAX_REQUESTS} // '') eq '0'
        && !exists $f{PHP_FCGI_CHILDREN} && !exists $f{PHP_FCGI_MAX_REQUESTS}) {
        $met{'PHP_FCGI_*'}++;
        @f{qw(PHP_FCGI_CHILDREN PHP_FCGI_MAX_REQUESTS)} = ('0', '0');
    }
    # mod_proxy's own variable, which mod_proxy_fcgi passes on
    if (($f{'proxy-nokeepalive'} // '') eq '1' && !exists $g->{'proxy-nokeepalive'}) {
        $met{'proxy-nokeepalive'}++;
        delete $f{'proxy-nokeepalive'};
    }
    # after an internal redirect, the SetEnvIfNoCase variable renamed; a
    # php pool passes the header itself
    if (exists $f{REDIRECT_HTTP_AUTHORIZATION} && !exists $g->{REDIRECT_HTTP_AUTHORIZATION}
        && $f{REDIRECT_HTTP_AUTHORIZATION} eq ($hh{Authorization} // '')
        && ($g->{HTTP_AUTHORIZATION} // '') eq $hh{Authorization}) {
        $met{REDIRECT_HTTP_AUTHORIZATION}++;
        delete $f{REDIRECT_HTTP_AUTHORIZATION};
    }
    return { %$ref, report => { %{ $ref->{report} }, server => \%f } };
}

# httpoxy: a client's Proxy header must reach PHP as HTTP_PROXY on no side
my ($ran, $proxied, @leaks) = (0, 0);
sub no_proxy {
    my ($who, $what, $a, $r) = @_;
    return unless $a->{report} && grep { $_ eq 'Proxy' } @{ $r->[2] };
    $proxied++;
    push @leaks, "$who $what" if exists $a->{report}{server}{HTTP_PROXY} || $a->{report}{env}{HTTP_PROXY};
}

my @diff;
for my $i (0 .. $#reqs) {
    my $r = $reqs[$i];
    my $what = "#$i $r->[0] $r->[1]" . (@{ $r->[2] } ? ' (' . join(', ', @{ $r->[2] }) . ')' : '')
             . ($r->[4]{proto} ? " $r->[4]{proto}" : "") . " Host: $r->[4]{host}";
    my $ref = answer($fport, $r);
    no_proxy('php-fpm', $what, $ref, $r);
    for my $side (@sides) {
        my $got = answer($side eq 'pool' ? $pport : $prport, $r);
        my @d = differences($got, documented($got, $ref, $r));
        no_proxy($side, $what, $got, $r);
        $ran++ if $got->{report} && $ref->{report};
        push @diff, map { "$side $what: $_" } @d;
        ok t_cmp(scalar(@d) ? join("\n", @d) : 'the same', 'the same', "$side, $what: php-fpm's answer");
    }
}
print "# $_\n" for @diff;
ok t_cmp($ran >= $N ? 'most' : "only $ran", 'most', "PHP ran on both sides for most requests ($ran of " . $N * @sides . ')');
ok t_cmp($proxied && !@leaks ? 'none' : $proxied ? join(', ', @leaks) : 'no Proxy header sent', 'none',
         "a Proxy header reached no side's PHP as HTTP_PROXY ($proxied answers)");
# each documented difference arose, and was asserted, at least once
my @documented = ('missing .php', '.phtml', 'HOME, USER', 'PATH', 'PHP_FCGI_*', 'proxy-nokeepalive',
                  'REDIRECT_HTTP_AUTHORIZATION', 'Max-Forwards');
ok t_cmp(join(', ', grep { !$met{$_} } @documented), '', 'every documented difference met: '
         . join(', ', map { "$_ ($met{$_})" } grep { $met{$_} } @documented));

php_stop($dir, $fpm);
