# cgiplus-wsgi runs a Flask application (Debian's python3-flask) persistently
# from a .cgp file: multipart uploads, chunked uploads (issue 10, hole 12:
# Flask read an empty body), cookies, redirects; --reload restarts the
# application in place when an imported file changes, losing no request.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Digest::SHA qw(sha256_hex);
use File::Path qw(make_path remove_tree);
use Time::HiRes qw(sleep time);
use lib 't/htdocs/apps';
use AppTest qw(write_file curl url);

plan tests => 29;

my $vars = Apache::Test::config()->{vars};
my $apps = "$vars->{documentroot}/apps";
my $launcher = "$vars->{top_dir}/lib/python/cgiplus-wsgi";
write_file("$apps/flask.cgp", "#!$launcher\n# the Flask test application\napp flaskapp:app\n");
my $u = '/apps/flask.cgp';

my ($code, $h, $body) = curl(url("$u/"));
ok t_cmp($code, 200, 'GET through Flask');
my ($hits, $pid) = $body =~ /^flask hits=(\d+) pid=(\d+)$/m;
ok defined $pid;
(undef, undef, $body) = curl(url("$u/"));
ok t_cmp($body, "flask hits=" . ($hits + 1) . " pid=$pid\n", 'the application persists');

# A path of UTF-8 bytes reaches Flask decoded (PEP 3333 native strings, as
# mod_wsgi: cgiplus.run_wsgi gave UTF-8-decoded values, so Werkzeug saw
# U+FFFD for "é" and failed with 500 on "☃").
($code, $h, $body) = curl(url("$u/uni/%C3%A9t%C3%A9"));
ok t_cmp("$code $body", "200 name=\xc3\xa9t\xc3\xa9 path=/uni/\xc3\xa9t\xc3\xa9\n", 'Flask: a UTF-8 path');
($code, $h, $body) = curl(url("$u/uni/%E2%98%83"));
ok t_cmp("$code $body", "200 name=\xe2\x98\x83 path=/uni/\xe2\x98\x83\n", 'Flask: a path past U+00FF');

# A multipart upload of a binary file, with a form field.
my $dir = "$vars->{t_logs}/apps";
remove_tree($dir);
make_path($dir);
my $data = join '', map { chr(($_ * 7) % 256) } 1 .. 300_000;
write_file("$dir/blob.bin", $data, 0644);
my $sha = sha256_hex($data);
($code, $h, $body) = curl('-F', "file=\@$dir/blob.bin", '-F', 'note=hello', url("$u/upload"));
ok t_cmp($code, 200, 'multipart upload');
ok t_cmp($body, qr/"name":\s*"blob\.bin"/, 'the file name');
ok t_cmp($body, qr/"size":\s*300000/, 'the file size');
ok t_cmp($body, qr/"sha256":\s*"$sha"/, 'the file content');
ok t_cmp($body, qr/"note":\s*"hello"/, 'the form field');

# Chunked uploads: a raw body and a multipart one.
($code, $h, $body) = curl('-H', 'Transfer-Encoding: chunked', '-H', 'Content-Type: application/octet-stream',
                          '--data-binary', "\@$dir/blob.bin", url("$u/body"));
ok t_cmp($code, 200, 'chunked upload');
ok t_cmp($body, qr/"size":\s*300000/, 'Flask reads the whole chunked body');
ok t_cmp($body, qr/"sha256":\s*"$sha"/, 'byte for byte');
($code, $h, $body) = curl('-H', 'Transfer-Encoding: chunked', '-F', "file=\@$dir/blob.bin", '-F', 'note=chunked',
                          url("$u/upload"));
ok t_cmp($body =~ /"size":\s*300000\b/ && $body =~ /"sha256":\s*"$sha"/ ? 1 : 0, 1,
         'a chunked multipart upload: the file');
ok t_cmp($body, qr/"note":\s*"chunked"/, 'and the field');

# A redirect that sets a cookie; the cookie comes back.
($code, $h, $body) = curl(url("$u/login?user=ann"));
ok t_cmp($code, 302, 'redirect status');
ok t_cmp($h->{location}, qr{^(http://[^/]+)?/apps/flask\.cgp/whoami$}, 'redirect target under the script');
ok t_cmp($h->{'set-cookie'}, qr/^user=ann; HttpOnly; Path=\//, 'the cookie set');
($code, $h, $body) = curl('-L', '-b', "$dir/jar", '-c', "$dir/jar", url("$u/login?user=bob"));
ok t_cmp($body, "user=bob\n", 'following the redirect, the cookie is read back');

# --reload: an imported module changes; the same process serves the new code.
my $rdir = "$dir/reload";
make_path($rdir);
chmod 0755, $dir, $rdir;
my $mod = sub { write_file("$rdir/relapp.py", <<"PY", 0644) };
import os
VERSION = $_[0]
def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [("v%d pid=%d\\n" % (VERSION, os.getpid())).encode()]
PY
$mod->(1);
write_file("$apps/reload.cgp", "#!$launcher\napp relapp:app\npath $rdir\nreload on\n");
($code, $h, $body) = curl(url('/apps/reload.cgp'));
my ($rpid) = $body =~ /^v1 pid=(\d+)$/;
ok t_cmp($rpid ? 1 : 0, 1, 'the reloading application serves v1');
$mod->(2);
utime time + 2, time + 2, "$rdir/relapp.py";
my ($seen, $bad, $n) = ('', 0, 0);
my $t0 = time;
while (time - $t0 < 8) {
    ($code, $h, $body) = curl(url('/apps/reload.cgp'));
    $n++;
    $bad++ if $code != 200;
    $seen = $body;
    last if $body =~ /^v2/;
    sleep 0.05;
}
ok t_cmp($seen, "v2 pid=$rpid\n", 'after the change the same worker serves v2 (exec in place)');
ok t_cmp($bad, 0, "no request failed during the reload ($n requests)");
my $log = do { local (@ARGV, $/) = ("$vars->{t_logs}/error_log"); <> } // '';
ok t_cmp($log, qr/CGIPLUS3101: cgiplus-wsgi: \S+relapp\.py changed: reloading \(pid $rpid\)/,
         'the reload is logged (3101)');
# ... at info, as errors.md says: a reload is routine, not a script error
my ($rnote) = reverse grep { /CGIPLUS3101: cgiplus-wsgi: \S+relapp\.py changed/ } split /\n/, $log;
ok t_cmp($rnote // 'no 3101 line', qr/\[cgiplus(?:-runner)?:info\]/, 'the reload note is logged at info');

# The command-line form, as `gunicorn MODULE:APP`: the options on the
# .cgp file's first line, nothing else in it.
write_file("$apps/flaskcl.cgp", "#!$launcher --path $apps flaskapp:app\n");
($code, $h, $body) = curl(url('/apps/flaskcl.cgp/'));
my ($clhits, $clpid) = $body =~ /^flask hits=(\d+) pid=(\d+)$/m;
ok t_cmp($code, 200, "'#!cgiplus-wsgi --path DIR flaskapp:app' serves the application");
(undef, undef, $body) = curl(url('/apps/flaskcl.cgp/'));
ok t_cmp($body, "flask hits=" . (($clhits // 0) + 1) . " pid=" . ($clpid // 0) . "\n", 'persistently');
(undef, undef, $body) = curl(url('/apps/flaskcl.cgp/where'));
ok t_cmp($body, qr{^/usr/bin/python3 /usr/lib/python3/dist-packages/flask/__init__\.py$},
         "Debian's python3 and Flask (python3-flask) serve it (workers' PATH)");

# The application's sys.path: the interpreter's, then the .cgp file's
# directory, as under mod_wsgi (python-path, then the interpreter's). The
# launcher's own directory (bindir, or lib/python here) and its library's
# are not the application's: the first stood ahead of the standard library
# and site-packages, where a .py file in bindir hid a module of theirs.
(undef, undef, $body) = curl(url("$u/syspath"));
my @path = split /\n/, $body;
ok t_cmp(scalar(grep { $_ eq "$vars->{top_dir}/lib/python" } @path), 0,
         "the launcher's directory is not on the application's sys.path");
ok t_cmp("$path[0] | $path[-1]", qr{^/usr/lib/python3\S*\.zip \| \Q$apps\E$},
         "the interpreter's first, the .cgp file's directory last");
