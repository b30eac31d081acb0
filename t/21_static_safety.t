# Only files inside the configured directory are served: '..', '//' and
# percent-encoding are resolved first, symlinks leading out are refused
# (unless symlinks=any), dotfiles are refused (unless dotfiles=allow), an
# encoded NUL or a bad encoding is a 400. The same policy holds for every
# method and for what the fast path leaves to httpd (directories, POST,
# OPTIONS, PUT...), in both phases; methods a file does not take get httpd's
# own 405 and Allow. Requests go over a raw socket so the path reaches
# httpd exactly as written.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use POSIX qw(mkfifo);

my $dir = Apache::Test::vars('documentroot') . '/static';
sub link_once { my ($to, $name) = @_; symlink($to, "$dir/$name") unless -l "$dir/$name" }
link_once('/etc/passwd', 'link-out');
link_once('/etc', 'linkdir-out');
link_once('hello.txt', 'link-in.txt');
link_once("$dir/hello.txt", 'link-abs-in.txt');
link_once('../hello.txt', 'sub/up.txt');
# a listable directory outside the tree (see t/conf/extra.conf.in)
my $outside = Apache::Test::vars('documentroot') . '/outside';
mkdir $outside unless -d $outside;
open my $os, '>', "$outside/outside-secret.txt" or die $!;
print $os "outside secret\n";
close $os;
link_once('../outside', 'linkdir-idx');
link_once('../outside/outside-secret.txt', 'link-secret.txt');
mkfifo("$dir/fifo", 0644) unless -p "$dir/fifo";
# readable by root only: httpd's children (User nobody) cannot open it
open my $np, '>', "$dir/fresh-noperm.txt" or die $!;
print $np "secret\n";
close $np;
chmod 0600, "$dir/fresh-noperm.txt";

# One request over a fresh connection: (status, whole response).
sub raw {
    my ($method, $path, $vhost) = @_;
    my $sock = Apache::TestRequest::vhost_socket($vhost || 'cgiplus_static')
        or die "connect: $!";
    my $body = $method eq 'GET' ? '' : 'a=1&b=2';
    print $sock "$method $path HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n",
                ($body ne '' ? "Content-Length: 7\r\n" : ''), "\r\n$body";
    local $/;
    my $resp = <$sock> // '';
    close $sock;
    my ($status) = $resp =~ m{^HTTP/1\.\d (\d{3})};
    return ($status // 0, $resp);
}

# [path, expected status, what it tries]
my @refused = (
    ['/static/../etc/passwd',                      404, 'dot-dot: leaves the prefix, httpd maps it to its DocumentRoot'],
    ['/static/../../../../../../etc/passwd',       400, 'dot-dot above the root'],
    ['/static/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd', 400, 'encoded dot-dot above the root'],
    ['/static/%2e%2e/etc/passwd',                  404, 'encoded dot-dot'],
    ['/static/sub/%2E%2E/%2e%2E/etc/passwd',       404, 'encoded dot-dot, upper case'],
    ['/static/..%2f..%2f..%2fetc%2fpasswd',        404, 'encoded slashes'],
    ['/static/sub/..%2F..%2Fhello.txt',            404, 'encoded slash in a dot-dot'],
    ['/static/hello.txt%00.html',                  400, 'encoded NUL'],
    ['/static/%00',                                400, 'encoded NUL alone'],
    ['/hstatic/hello.txt%00',                      400, 'encoded NUL, handler phase'],
    ['/static/%zz',                                400, 'invalid encoding'],
    ['/static/hello%2',                            400, 'truncated encoding'],
    ['/static/link-out',                           403, 'symlink to /etc/passwd'],
    ['/static/linkdir-out/passwd',                 403, 'symlinked directory out of the root'],
    ['/hstatic/link-out',                          403, 'symlink out, handler phase'],
    ['/sstatic/up.txt',                            403, 'relative symlink out of the mount (../hello.txt)'],
    ['/nstatic/up.txt',                            403, 'symlinks=none'],
    ['/static/.hidden',                            403, 'dotfile'],
    ['/static/%2ehidden',                          403, 'encoded dotfile'],
    ['/static/sub/../.hidden',                     403, 'dotfile after dot-dot'],
    ['/hstatic/.hidden',                           403, 'dotfile, handler phase'],
    ['/static/.gitignore',                         403, 'another dotfile'],
    ['/static/fifo',                               403, 'a FIFO is not served (and does not hang)'],
    ['/static/fresh-noperm.txt',                   403, 'a file httpd may not read'],
    ['/plain/fresh-noperm.txt',                    403, '(the default handler says the same)'],
);
my @served = (
    ['/static/link-in.txt',           "Hello, static\n", 'relative symlink inside'],
    ['/static/link-abs-in.txt',       "Hello, static\n", 'absolute symlink that stays inside'],
    ['/static//hello.txt',            "Hello, static\n", 'double slash'],
    ['/static/./sub/../hello.txt',    "Hello, static\n", 'dot segments inside'],
    ['/st%61tic/hell%6F.txt',         "Hello, static\n", 'encoded unreserved characters'],
    ['/lstatic/up.txt',               "Hello, static\n", 'symlinks=any follows it out'],
    ['/nstatic/page.txt',             "a page below sub\n", 'symlinks=none serves plain files'],
);

# Every method, both phases, and what httpd does itself (directories).
my @methods = qw(GET POST PUT DELETE OPTIONS PATCH PROPFIND);
my @policy = (
    ['/static/link-out',              'symlink to /etc/passwd'],
    ['/hstatic/link-out',             'symlink to /etc/passwd, handler phase'],
    ['/static/linkdir-out/passwd',    'through a symlinked directory'],
    ['/static/linkdir-out/',          'a symlinked directory (index or listing)'],
    ['/static/linkdir-idx/',          'a symlinked listable directory'],
    ['/hstatic/linkdir-idx/',         'a symlinked listable directory, handler phase'],
    ['/static/linkdir-idx',           'a symlinked directory without its slash'],
    ['/static/linkdir-idx/outside-secret.txt', 'a file through a symlinked directory'],
    ['/static/link-secret.txt',       'a relative symlink out of the tree'],
    ['/static/link-secret.txt/extra', 'a symlink out, with path info'],
    ['/sstatic/up.txt',               'relative symlink out of the mount'],
    ['/nstatic/up.txt',               'symlinks=none'],
    ['/static/.hidden',               'dotfile'],
    ['/hstatic/.hidden',              'dotfile, handler phase'],
);
# [method, path]: what the default handler answers for the same file
my @same = map { my $m = $_; map { [$m, $_] } '/hello.txt', '/big.txt', '/sub/' }
           qw(POST PUT DELETE OPTIONS PATCH);

plan tests => 2 * @refused + 6 + 2 * @served + 2 + 2 * @methods * @policy + 3 * 2 * @same + 2;

for my $t (@refused) {
    my ($path, $want, $what) = @$t;
    my ($status, $resp) = raw(GET => $path);
    ok t_cmp($status, $want, "$what: $path");
    ok $resp !~ /root:.*:0:0:/ && $resp !~ /a dotfile: refused|secret/;
}
# What the admin reads: each refusal with its id and the file.
{
    my $logf = Apache::Test::vars('t_logs') . '/error_log';
    my $log = do { open my $fh, '<', $logf or die "$logf: $!"; local $/; <$fh> // '' };
    ok t_cmp($log, qr{CGIPLUS1511: file permissions deny server access: \S+/static/fresh-noperm\.txt},
             'a file httpd may not read: logged (1511)');
    ok t_cmp($log, qr{CGIPLUS1516: refused \S+/static/fifo: not a regular file}, 'a FIFO: logged (1516)');
    ok t_cmp($log, qr{CGIPLUS1512: refused \S*/static/link-out: a symbolic link on its path leads out of the served directory},
             'a symlink out: logged (1512)');
    ok t_cmp($log, qr{CGIPLUS1515: refused /static/hello\.txt%00\.html: an encoded NUL in the path},
             'an encoded NUL: logged (1515)');
    ok t_cmp($log, qr{CGIPLUS1518: refused /static/\.hidden: a name starting with '\.' \(dotfiles=deny\)},
             'a dotfile in the quick handler: logged (1518)');
    ok t_cmp($log, qr{CGIPLUS1513: refused /hstatic/\.hidden: a name starting with '\.' \(dotfiles=deny\)},
             '... in the handler phase: logged (1513)');
}
for my $t (@served) {
    my ($path, $want, $what) = @$t;
    my ($status, $resp) = raw(GET => $path);
    ok t_cmp($status, 200, "$what: $path");
    my ($body) = $resp =~ /\r\n\r\n(.*)\z/s;
    ok t_cmp($body, $want, "$what: body");
}

for my $t (@policy) {
    my ($path, $what) = @$t;
    for my $m (@methods) {
        my ($status, $resp) = raw($m => $path);
        ok t_cmp($status, 403, "$m $path: $what");
        ok $resp !~ /root:.*:0:0:|outside secret|outside-secret|Index of/;
    }
}
# A file inside: every method as httpd's default handler answers it for an
# Alias of the same tree (POST: the file; others: 405 with its Allow).
sub parse {
    my ($resp) = @_;
    my ($head, $body) = split /\r\n\r\n/, $resp, 2;
    my ($allow) = $head =~ /^Allow: *(.*?)\r?$/mi;
    return ($allow // '(none)', $body // '');
}
for my $t (@same) {
    my ($m, $file) = @$t;
    my ($want, $wresp) = raw($m => "/plain$file");
    my ($wallow, $wbody) = parse($wresp);
    for my $prefix ('/static', '/hstatic') {
        my ($status, $resp) = raw($m => "$prefix$file");
        my ($allow, $body) = parse($resp);
        ok t_cmp($status, $want, "$m $prefix$file: status as the default handler's");
        ok t_cmp($allow, $wallow, "$m $prefix$file: Allow as the default handler's");
        ok $status != 200 || $body eq $wbody;
    }
}
{
    # the policy check does not refuse a link that stays inside, for POST
    my ($status, $resp) = raw(POST => '/static/link-in.txt');
    ok t_cmp($status, 200, 'POST to a symlink inside: served');
    ($status) = raw(POST => '/static/linkdir-idx-missing/x');
    ok t_cmp($status, 404, 'a missing name: 404');
}

# dotfiles=allow serves them
open my $fh, '>', "$dir/sub/.allowed" or die $!;
print $fh "allowed dotfile\n";
close $fh;
my ($status, $resp) = raw(GET => '/lstatic/.allowed');
ok t_cmp($status, 200, 'dotfiles=allow serves a dotfile');
unlink "$dir/sub/.allowed";
# "/static" alone is redirected to "/static/" (by mod_dir, as for a directory)
($status, $resp) = raw(GET => '/static');
ok t_cmp($status, 301, '/static redirects to /static/');
unlink "$dir/fresh-noperm.txt";
