# What PHP applications rely on, through a php pool (CGIplusEngine php,
# direct and relayed) beside php-fpm behind mod_proxy_fcgi (Debian's
# php8.2-fpm.conf way, a private php-fpm): header() with replace=false
# (several Set-Cookie), http_response_code(), Status: and header('HTTP/1.1
# ...') with their reasons, a 204 and a 304 that print a body, httpd's own
# 304 from a Last-Modified, HEAD, then a second request on the same
# connection, exit() and die() in nested output buffers, fatal errors with
# display_errors off (500) and on, set_time_limit(), an upload over
# upload_max_filesize, a body over post_max_size, PATH_INFO URLs. Every
# request is made twice on each pool side (the same worker) and compared
# with php-fpm's answer: status line, headers in order (the date, Server
# and the framing aside), body. Then what php-fpm cannot be compared with:
# nothing of one request (a header, a SetEnvIf variable, putenv()) is seen
# by the next one in the same php-cgi, REQUEST_TIME_FLOAT is each
# request's own, error_log() reaches the virtual host's log whole (a long
# message too), a PATH_INFO URL under AcceptPathInfo Off is httpd's 404 as
# under mod_php (php-fpm runs it: docs/APPS.md), and ob_flush(); flush()
# reaches the client before the script ends.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use Time::HiRes qw(time sleep);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_dir);
use PhpPeer qw(php_need php_fpm php_httpd php_stop);
use FreePort qw(free_ports);
use AppTest qw(write_file);

my @cases = (
    [GET => '/app/hdrs.php'],
    map({ [GET => "/app/code.php?c=$_"] } qw(rc rc2 st stc h11 h10 hcustom hnoreason rc0 loc201 nocontent nobody)),
    [GET => '/app/etag.php', 'If-None-Match: "v1"'],
    [GET => '/app/etag.php?ph=1&body=1', 'If-None-Match: "v1"'],
    [GET => '/app/etag.php', 'If-Modified-Since: Mon, 01 Jan 2024 00:00:00 GMT'],
    [GET => '/app/etag.php'],
    [HEAD => '/app/head.php'],
    [HEAD => '/app/head.php?cl=1'],
    [GET => '/app/exitob.php'],
    [GET => '/app/exitob.php?die=1'],
    map({ my $k = $_; map { [GET => "/app/fatal.php?k=$k$_"] } '', '&on=1', '&echo=1' } qw(call exc parse)),
    [GET => '/app/tl.php'],
    [POST => '/app/post.php', 'Content-Type: multipart/form-data; boundary=XyZ', 'MP'],
    [POST => '/app/post.php', 'Content-Type: application/x-www-form-urlencoded', 'BIG'],
    [GET => '/app/pi.php/a/b?q=1'],
    [GET => '/app/pi.php/'],
    [GET => '/app/on/pi.php/a/b'],
);
my @sides = qw(direct relayed);
plan tests => 2 + @sides * (2 * @cases + 11) + 1, need php_need();

my $dir = private_dir('phpbehaviour');
my ($rport, $fport, $port) = free_ports(3);
my $app = "$dir/app";
mkdir $_, 0755 for $app, "$app/on", "$app/off";

write_file("$app/hdrs.php", <<'PHP', 0644);
<?php
header('Set-Cookie: a=1; path=/');
header('Set-Cookie: b=2; path=/', false);
setcookie('c', '3');
setcookie('d', 'x y;z', ['httponly' => true, 'samesite' => 'Lax']);
header('X-A: 1');
header('X-A: 2', false);
header('X-B: 1');
header('X-B: 2');
header('X-Gone: 1');
header_remove('X-Gone');
echo implode("\n", headers_list()), "\n";
PHP
write_file("$app/code.php", <<'PHP', 0644);
<?php
switch ($_GET['c']) {
case 'rc': http_response_code(418); break;
case 'rc2': http_response_code(404); http_response_code(410); break;
case 'st': header('Status: 403 Forbidden'); break;
case 'stc': header('Status: 299 Custom Thing'); break;
case 'h11': header('HTTP/1.1 404 Not Found'); break;
case 'h10': header('HTTP/1.0 201 Created'); break;
case 'hcustom': header('HTTP/1.1 299 Custom Thing'); break;
case 'hnoreason': header('HTTP/1.1 299'); break;
case 'rc0': header('X: y', true, 451); break;
case 'loc201': http_response_code(201); header('Location: /app/code.php'); break;
case 'nocontent': http_response_code(204); echo "a body for a 204"; exit;
case 'nobody': exit;
}
echo "code ", http_response_code(), "\n";
PHP
write_file("$app/etag.php", <<'PHP', 0644);
<?php
header('ETag: "v1"');
header('Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT');
if (($_SERVER['HTTP_IF_NONE_MATCH'] ?? '') === '"v1"') {
    if (isset($_GET['ph'])) header('HTTP/1.1 304 Not Modified'); else http_response_code(304);
    if (isset($_GET['body'])) echo "a body after a 304\n";
    exit;
}
echo "the resource\n";
PHP
write_file("$app/head.php", <<'PHP', 0644);
<?php
header('X-Method: ' . $_SERVER['REQUEST_METHOD']);
if (isset($_GET['cl'])) header('Content-Length: 14');
echo str_repeat("y", 100000), "body for head\n";
PHP
write_file("$app/exitob.php", <<'PHP', 0644);
<?php
ob_start();
echo "in a buffer\n";
ob_start(function ($b) { return strtoupper($b); });
echo "nested\n";
if (isset($_GET['die'])) die("died\n");
exit("exit message\n");
PHP
write_file("$app/fatal.php", <<'PHP', 0644);
<?php
if (isset($_GET['on'])) ini_set('display_errors', '1');
if (isset($_GET['echo'])) echo "before\n";
if ($_GET['k'] === 'call') undefined_function_xyz();
if ($_GET['k'] === 'exc') throw new RuntimeException("an exception");
if ($_GET['k'] === 'parse') include __DIR__ . '/bad.inc';
PHP
write_file("$app/bad.inc", "<?php this is not php\n", 0644);
write_file("$app/tl.php", <<'PHP', 0644);
<?php
set_time_limit(1);
echo "start\n";
$t = microtime(true);
while (microtime(true) - $t < 10) { for ($i = 0; $i < 100000; $i++); }
echo "not reached\n";
PHP
write_file("$app/post.php", <<'PHP', 0644);
<?php
$f = array_map(function ($f) { return [$f['name'], $f['error'], $f['size']]; }, $_FILES);
echo "post=", json_encode($_POST), " files=", json_encode($f),
     " input=", strlen(file_get_contents('php://input')), "\n";
PHP
my $pi = <<'PHP';
<?php
foreach (['SCRIPT_NAME', 'PATH_INFO', 'PATH_TRANSLATED', 'PHP_SELF', 'SCRIPT_FILENAME', 'REQUEST_URI'] as $k)
    echo $k, '=', $_SERVER[$k] ?? '(unset)', "\n";
PHP
write_file("$_/pi.php", $pi, 0644) for $app, "$app/on", "$app/off";
write_file("$app/env.php", <<'PHP', 0644);
<?php
$o = [];
foreach (['HTTP_X_LEAK', 'H3VAR', 'H3PUT'] as $k) $o[$k] = [getenv($k), $_SERVER[$k] ?? false];
$o['pid'] = getmypid();
$o['rtf'] = $_SERVER['REQUEST_TIME_FLOAT'];
$o['age'] = microtime(true) - $_SERVER['REQUEST_TIME_FLOAT'];
if (isset($_GET['put'])) putenv('H3PUT=' . $_GET['put']);
echo json_encode($o);
PHP
write_file("$app/elog.php", <<'PHP', 0644);
<?php
error_log("behaviour line " . $_GET['tag']);
error_log($_GET['tag'] . str_repeat('L', 10000) . 'END');
echo "ok\n";
PHP
write_file("$app/stream.php", <<'PHP', 0644);
<?php
echo "first\n";
ob_flush();
flush();
usleep(1500000);
echo "second\n";
PHP
my $mp = "--XyZ\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nhello\r\n"
       . "--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.bin\"\r\n\r\n"
       . ('z' x 3_000_000) . "\r\n--XyZ\r\nContent-Disposition: form-data; name=\"after\"\r\n\r\nyes\r\n--XyZ--\r\n";
my %body = (MP => $mp, BIG => 'x=' . ('a' x 9_000_000));  # over upload_max_filesize 2M, post_max_size 8M

my $fpm = php_fpm($dir, 1);

my $pool = <<"CONF";
    <Directory $app>
        CGIplusEngine php
        CGIplusMaxWorkers 1
    </Directory>
CONF
php_httpd($dir, $port, [$rport, $fport], [qw(setenvif)], <<"CONF", 'a private httpd: a php pool, direct and relayed, and php-fpm');
Alias /app/ $app/
<Directory $app>
    Require all granted
</Directory>
<Directory $app/on>
    AcceptPathInfo On
</Directory>
<Directory $app/off>
    AcceptPathInfo Off
</Directory>
SetEnvIfExpr "%{QUERY_STRING} =~ /setvar/" H3VAR=yes
<VirtualHost 127.0.0.1:$port>
    ErrorLog $dir/direct_log
$pool
</VirtualHost>
<VirtualHost 127.0.0.1:$rport>
    ErrorLog $dir/relayed_log
$pool
    CGIplusDirect off
</VirtualHost>
<VirtualHost 127.0.0.1:$fport>
    <FilesMatch ".+\\.php\$">
        SetHandler "proxy:unix:$dir/fpm.sock|fcgi://localhost"
    </FilesMatch>
</VirtualHost>
CONF

# The raw request on a connection of its own, a second one after it on the
# same connection when $next is given; the answers as they came (raw), and
# when the first byte after the first head came and the last byte.
sub exchange {
    my ($p, $method, $path, $hdrs, $body, $next) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$p", Timeout => 20) or return ('', 0, 0);
    my $req = "$method $path HTTP/1.1\r\nHost: 127.0.0.1\r\n" . join('', map { "$_\r\n" } @$hdrs);
    $req .= "Content-Length: " . length($body) . "\r\n" if defined $body;
    $req .= ($next ? '' : "Connection: close\r\n") . "\r\n" . ($body // '');
    $req .= "GET $next HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" if $next;
    my $t0 = time;
    print $s $req;
    my ($data, $first) = ('', 0);
    local $SIG{ALRM} = sub { die "timeout\n" };
    alarm 30;
    eval {
        while (sysread($s, my $b, 65536)) {
            $data .= $b;
            $first ||= time - $t0 if $data =~ /\r\n\r\n./s;
        }
    };
    alarm 0;
    return ($data, $first, time - $t0);
}

# Each response of $raw: its status line and headers in order (the date,
# Server and the framing aside), and its de-chunked body.
sub normal {
    my ($raw, $head_only) = @_;
    my @out;
    while ($raw =~ s/^(.*?)\r\n\r\n//s) {
        my ($sl, @h) = split /\r\n/, $1;
        my %h = map { /^([^:]+):\s*(.*)$/ ? (lc $1, $2) : () } @h;
        my $body = '';
        if ($head_only || $sl =~ / (204|304) /) {
            $head_only = 0;
        } elsif (($h{'transfer-encoding'} // '') =~ /chunked/) {
            while ($raw =~ s/^([0-9a-fA-F]+)\r\n//) {
                my $n = hex $1;
                $body .= substr($raw, 0, $n, '');
                $raw =~ s/^\r\n//;
                last unless $n;
            }
        } elsif (defined $h{'content-length'}) {
            $body = substr($raw, 0, $h{'content-length'}, '');
        } else {
            ($body, $raw) = ($raw, '');
        }
        push @out, join("\n", $sl, grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive):/i } @h)
                   . "\n\n" . $body;
    }
    return join "\n----\n", @out;
}

my %port = (direct => $port, relayed => $rport, fpm => $fport);
for my $c (@cases) {
    my ($method, $path, @more) = @$c;
    my $body = @more && $body{$more[-1]} ? $body{pop @more} : undef;
    # a second request on the connection, but where the first one's body
    # is over a limit (the connection may be closed before it is read)
    my $next = $body ? undef : '/app/code.php?c=rc';
    my $ref = normal((exchange($fport, $method, $path, \@more, $body, $next))[0], $method eq 'HEAD');
    t_debug("fpm $method $path: " . join("|", split /\n/, substr($ref, 0, 400)));
    for my $side (@sides) {
        for my $n (1, 2) {
            my $got = normal((exchange($port{$side}, $method, $path, \@more, $body, $next))[0], $method eq 'HEAD');
            ok t_cmp($got, $ref, "$side, $method $path, request $n: as php-fpm");
        }
    }
}

# getenv() and $_SERVER in the next request: nothing of the one before.
sub json_of { my ($raw) = @_; $raw =~ s/^.*?\r\n\r\n//s; $raw =~ s/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$//g; return $raw }
for my $side (@sides) {
    my $p = $port{$side};
    my $one = json_of((exchange($p, 'GET', '/app/env.php?setvar&put=one', ['X-Leak: yes']))[0]);
    my $two = json_of((exchange($p, 'GET', '/app/env.php', []))[0]);
    my ($pid1) = $one =~ /"pid":(\d+)/;
    my ($pid2) = $two =~ /"pid":(\d+)/;
    ok t_cmp($one, qr/"HTTP_X_LEAK":\["yes","yes"\],"H3VAR":\["yes","yes"\],"H3PUT":\[false,false\]/,
             "$side: the request's header and SetEnvIf variable reach getenv() and \$_SERVER");
    ok t_cmp($pid2, $pid1, "$side: the next request runs in the same php-cgi");
    ok t_cmp($two, qr/"HTTP_X_LEAK":\[false,false\],"H3VAR":\[false,false\],"H3PUT":\[false,false\]/,
             "$side: nothing of the request before (header, variable, putenv) is seen by the next");
    my ($rtf1) = $one =~ /"rtf":([\d.]+)/;
    my ($rtf2, $age) = $two =~ /"rtf":([\d.]+),"age":([\d.eE-]+)/;
    ok t_cmp($rtf2 > $rtf1 ? 1 : 0, 1, "$side: REQUEST_TIME_FLOAT is the request's own ($rtf1, then $rtf2)");
    ok t_cmp($age < 2 ? 1 : 0, 1, "$side: REQUEST_TIME_FLOAT is when the request began ($age s before the script read it)");

    # error_log(): the virtual host's log, a line each, a long message whole
    exchange($p, 'GET', "/app/elog.php?tag=$side", []);
    my $re = qr/CGIPLUS1050: stderr from \Q$app\E\/elog\.php \(pid \d+\): behaviour line \Q$side\E$/m;
    my $t = time + 5;
    my $log = '';
    while (time < $t) {
        if (open my $fh, '<', "$dir/${side}_log") { local $/; $log = <$fh> // '' }
        last if $log =~ /LEND$/m;
        sleep 0.1;
    }
    ok t_cmp($log, $re, "$side: error_log()'s message in the virtual host's log (1050)");
    my $long = join '', $log =~ /^.*CGIPLUS1050: stderr from \S+ \(pid \d+\): ((?:\Q$side\E)?L+(?:END)?)$/mg;
    ok t_cmp($long, $side . ('L' x 10000) . 'END', "$side: a message of 10 KB reaches the log whole");

    # AcceptPathInfo: httpd's, as under mod_php and mod_cgi
    my ($off) = exchange($p, 'GET', '/app/off/pi.php/a/b', []);
    ok t_cmp($off, qr{^HTTP/1\.1 404 }, "$side: AcceptPathInfo Off: a PATH_INFO URL is httpd's 404");
    my ($offplain) = exchange($p, 'GET', '/app/off/pi.php', []);
    ok t_cmp($offplain, qr{^HTTP/1\.1 200 .*SCRIPT_NAME=/app/off/pi\.php}s, "$side: AcceptPathInfo Off: the script itself runs");

    # ob_flush(); flush(): the first line before the script's end
    my ($raw, $first, $total) = exchange($p, 'GET', '/app/stream.php', []);
    ok t_cmp(normal($raw), "HTTP/1.1 200 OK\nContent-Type: text/html; charset=UTF-8\n\nfirst\nsecond\n", "$side: the streamed page");
    ok t_cmp($first < 1 && $total >= 1.4 ? 1 : 0, 1,
             "$side: ob_flush(); flush() sent the first line at once ($first s), the rest at the end ($total s)");
}
ok t_cmp(php_stop($dir, $fpm), $fpm, 'php-fpm stopped');
