# cgiplus-psgi runs a PSGI application (Debian's Plack: Plack::Builder,
# Plack::Request, Plack::App::File) persistently through
# Plack::Handler::CGIplus, from a .cgp file and from an app.psgi that names
# the launcher on its first line: uploads, chunked uploads, cookies,
# redirects, streaming, a dying application; --reload in place; and a
# framework's application (Debian's Mojolicious).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Digest::SHA qw(sha256_hex);
use File::Path qw(make_path remove_tree);
use Time::HiRes qw(sleep time);
use lib 't/htdocs/apps';
use AppTest qw(write_file curl url);

plan tests => 48;

my $vars = Apache::Test::config()->{vars};
my $apps = "$vars->{documentroot}/apps";
my $launcher = "$vars->{top_dir}/lib/perl/cgiplus-psgi";
write_file("$apps/plack.cgp", "#!$launcher\n# the Plack test application\napp plackapp.psgi\n");
my $u = '/apps/plack.cgp';

my ($code, $h, $body) = curl(url("$u/"));
ok t_cmp($code, 200, 'GET through Plack');
my ($hits, $pid) = $body =~ /^psgi hits=(\d+) pid=(\d+)$/m;
(undef, undef, $body) = curl(url("$u/"));
ok t_cmp($body, "psgi hits=" . (($hits // 0) + 1) . " pid=" . ($pid // 0) . "\n", 'the application persists');

my $dir = "$vars->{t_logs}/psgi";
remove_tree($dir);
make_path($dir);
my $data = join '', map { chr(($_ * 13) % 256) } 1 .. 300_000;
write_file("$dir/blob.bin", $data, 0644);
my $sha = sha256_hex($data);
($code, $h, $body) = curl('-F', "file=\@$dir/blob.bin", '-F', 'note=hello', url("$u/upload"));
ok t_cmp($code, 200, 'multipart upload');
ok t_cmp($body, "name=blob.bin size=300000 sha256=$sha note=hello\n", 'the file and the field');
($code, $h, $body) = curl('-H', 'Transfer-Encoding: chunked', '-H', 'Content-Type: application/octet-stream',
                          '--data-binary', "\@$dir/blob.bin", url("$u/body"));
ok t_cmp($body, "size=300000 sha256=$sha\n", 'a chunked upload, byte for byte');
($code, $h, $body) = curl('-H', 'Transfer-Encoding: chunked', '-F', "file=\@$dir/blob.bin", '-F', 'note=chunked',
                          url("$u/upload"));
ok t_cmp($body, "name=blob.bin size=300000 sha256=$sha note=chunked\n", 'a chunked multipart upload');

($code, $h, $body) = curl(url("$u/login?user=ann"));
ok t_cmp($code, 302, 'redirect status');
ok t_cmp($h->{location}, qr{^http://127\.0\.0\.1:\d+/apps/plack\.cgp/whoami$}, 'redirect target under the script');
ok t_cmp($h->{'set-cookie'}, qr/^user=ann; HttpOnly/, 'the cookie set');
($code, $h, $body) = curl('-L', '-b', "$dir/jar", '-c', "$dir/jar", url("$u/login?user=bob"));
ok t_cmp($body, "user=bob\n", 'following the redirect, the cookie is read back');

($code, $h, $body) = curl(url("$u/stream"));
ok t_cmp($body, "part 1\npart 2\npart 3\n", 'a streamed (delayed) response');
($code, $h, $body) = curl(url("$u/files/hello.txt"));
ok t_cmp("$code $body", "200 a static file\n", 'Plack::App::File mounted in the application');

($code, $h, $body) = curl(url("$u/die"));
ok t_cmp($code, 500, 'a dying application answers 500');
(undef, undef, $body) = curl(url("$u/"));
ok t_cmp($body, qr/^psgi hits=\d+ pid=$pid$/, 'and the same worker serves on');
my $log = sub { do { local (@ARGV, $/) = ("$vars->{t_logs}/error_log"); <> } // '' };
ok t_cmp($log->(), qr/CGIPLUS3151: Plack::Handler::CGIplus: the application died: asked to die/,
         'the error is logged (3151)');

# psgi.nonblocking false, as Starman and Plack::Handler::FCGI: no event
# loop runs in the worker (Plack::Handler::CGI, the parent, says true).
(undef, undef, $body) = curl(url("$u/nonblocking"));
ok t_cmp($body, "nonblocking=0\n", 'psgi.nonblocking is false');

# A status past RFC 2616's goes out with its reason phrase, as Starman and
# Plack::Handler::FCGI send it (HTTP::Status): Plack::Handler::CGI's table
# stops at RFC 2616, so these went out as "HTTP/1.1 429 " with a Perl
# warning in the error log each time. Each twice, from the same worker.
my %phrase = (308 => 'Permanent Redirect', 418 => "I'm a teapot", 429 => 'Too Many Requests',
              451 => 'Unavailable For Legal Reasons');
my $status_line = sub {
    my ($line) = `curl -s -S --max-time 20 -o /dev/null -D - '$_[0]'` =~ m{^HTTP/1\.1 ([^\r\n]*)};
    return $line // 'no answer';
};
my @lines = map { my $st = $_; map { $status_line->(url("$u/status/$st")) } 1, 2 } sort keys %phrase;
ok t_cmp(join('|', @lines), join('|', map { ("$_ $phrase{$_}") x 2 } sort keys %phrase),
         'statuses past RFC 2616 carry their reason phrase');
ok t_cmp(scalar(grep { /uninitialized value \$message/ } split /\n/, $log->()), 0,
         'and no warning is logged for them');

# psgi.input is the request's stream, not a buffer (psgix.input.buffered is
# not set): a seek fails as on mod_cgi's pipe (ESPIPE) and the body reads
# on; tell counts what was read. A seek used to die (no SEEK in the tie).
for my $n (1, 2) {
    ($code, $h, $body) = curl('--data-binary', 'abcdefghij', url("$u/seek"));
    ok t_cmp("$code $body", "200 head=abcd seek=0 ESPIPE tell=4 rest=efghij\n",
             "psgi.input: seek fails as on a pipe, tell counts, the body reads on ($n)");
}

# The PSGI environment is the request's: a variable the application put in
# %ENV during an earlier request (it stays in the process, as under
# Starman) is not in it, as it is not in a CGI process's. It was, since
# Plack::Handler::CGI copies %ENV. Four requests on two workers: at least
# one worker serves twice.
my @leak = map { (curl(url("$u/envleak")))[2] =~ s/\n\z//r } 1 .. 4;
ok t_cmp(scalar(grep { /^env=set/ } @leak), 0, "no request sees an earlier one's %ENV as a variable (" . join("; ", @leak) . ")");
ok t_cmp(scalar(grep { /^env=none process=set pid=\d+\z/ } @leak) > 0 ? 1 : 0, 1,
         'a worker served twice, its %ENV kept');

# A header value with a line break (made of a request's data) added
# headers or began the body: now the application's error, a 500, and the
# worker serves on.
for my $kind ('lf', 'crlf2') {
    ($code, $h, $body) = curl(url("$u/badheader?$kind"));
    ok t_cmp(join(' ', $code, $h->{'x-injected'} // '-', $body =~ /smuggled/ ? 'smuggled' : '-'), '500 - -',
             "a header with a line break ($kind): 500, nothing injected");
}
($code, $h, $body) = curl(url("$u/"));
ok t_cmp($code, 200, 'and the worker serves on');

# A program the application runs that reads its stdin gets its end at
# once, as under Starman (descriptor 0 /dev/null): it got the requests'
# pipe, which never ends, and waited (here: timeout's 3 s, status 124).
for my $n (1, 2) {
    ($code, $h, $body) = curl(url("$u/child"));
    ok t_cmp("$code $body", qr/^200 child=\[ rc=0\] body=\[\] pid=\d+\n\z/, "a child reading stdin: its end at once ($n)");
}
($code, $h, $body) = curl('--data', 'abc123', url("$u/child"));
ok t_cmp("$code $body", qr/^200 child=\[ rc=0\] body=\[abc123\] pid=\d+\n\z/, 'after the body: the body read, the child at its end');

# What the application prints on STDOUT (and a program it runs) goes to
# the error log, as Starman's stdout or under Plack::Handler::FCGI: never
# into a response. It did, as under Plack::Handler::CGI: a print before the
# response was taken for its header (502), one in a stream was in the body.
for my $n (1, 2) {
    ($code, $h, $body) = curl(url("$u/print"));
    ok t_cmp("$code $body", "200 one\ntwo\n", "STDOUT prints are not in the response ($n)");
}
my @debug;
for (1 .. 50) {     # stderr reaches the log beside the response, not before its end
    @debug = grep { /psgi-t debug: / } split /\n/, $log->();
    last if @debug >= 6;
    sleep 0.1;
}
ok t_cmp(join('|', map { /psgi-t debug: (.*)/ ? $1 : () } @debug),
         join('|', ('before the response', 'from a child', 'inside the stream') x 2),
         'they are in the error log, in order');

# psgix.harakiri, as Starman: an application that commits it (as
# Plack::Middleware::SizeLimit does) has its worker replaced after the
# response (RETIRE), and no request fails.
($code, $h, $body) = curl(url("$u/harakiri"));
my ($hpid) = $body =~ /pid=(\d+)/;
ok t_cmp("$code $body", qr/^200 harakiri=1 pid=\d+$/, 'psgix.harakiri is true in a persistent worker');
my $gone = 0;
for (1 .. 100) { if (!kill 0, $hpid // 0) { $gone = 1; last } sleep 0.1 }
ok t_cmp($gone, 1, 'the worker that committed harakiri ends after its response');
my ($hbad, %hpids) = (0);
for (1 .. 6) {
    ($code, $h, $body) = curl(url("$u/"));
    $hbad++ if $code != 200;
    $hpids{$1}++ if $body =~ /pid=(\d+)/;
}
ok t_cmp("$hbad " . ($hpids{$hpid // 0} // 0), '0 0', 'the next requests succeed, none from that worker');
ok t_cmp($log->(), qr/CGIPLUS3300: Plack::Handler::CGIplus: psgix\.harakiri\.commit: the worker is replaced after this request \(pid $hpid\)/,
         'the harakiri is logged (3300)');

# An app.psgi naming the launcher on its first line (AddHandler .psgi), reloading.
make_path("$dir/lib");
chmod 0755, $dir, "$dir/lib";
my $mod = sub { write_file("$dir/lib/RelApp.pm", "package RelApp;\nour \$VERSION = $_[0];\n1;\n", 0644) };
$mod->(1);
write_file("$apps/reload.t.psgi", <<"PSGI");
#!$launcher --reload -I $dir/lib
use RelApp;
sub { [200, ['Content-Type' => 'text/plain'], ["v\$RelApp::VERSION pid=\$\$\\n"]] };
PSGI
($code, $h, $body) = curl(url('/apps/reload.t.psgi'));
my ($rpid) = $body =~ /^v1 pid=(\d+)$/;
ok t_cmp($rpid ? 1 : 0, 1, 'an app.psgi with the launcher on its first line serves v1');
$mod->(2);
utime time + 2, time + 2, "$dir/lib/RelApp.pm";
my ($seen, $bad, $n) = ('', 0, 0);
my $t0 = time;
while (time - $t0 < 8) {
    ($code, $h, $body) = curl(url('/apps/reload.t.psgi'));
    $n++;
    $bad++ if $code != 200;
    $seen = $body;
    last if $body =~ /^v2/;
    sleep 0.05;
}
ok t_cmp($seen, "v2 pid=" . ($rpid // 0) . "\n", 'after the module changed the same worker serves v2');
ok t_cmp($bad, 0, "no request failed during the reload ($n requests)");
ok t_cmp($log->(), qr/CGIPLUS3153: cgiplus-psgi: \S+RelApp\.pm changed: reloading/, 'the reload is logged (3153)');
my ($rnote) = reverse grep { /CGIPLUS3153: cgiplus-psgi: \S+RelApp\.pm changed/ } split /\n/, $log->();
ok t_cmp($rnote // 'no 3153 line', qr/\[cgiplus(?:-runner)?:info\]/, 'the reload note is logged at info');
ok t_cmp(-d "/usr/share/perl5/Plack" ? 1 : 0, 1, "Plack is Debian's (libplack-perl)");

# A framework from Debian: a Mojolicious::Lite application
# (libmojolicious-perl), persistent, with uploads, a chunked body, a
# redirect and a cookie.
write_file("$apps/mojo.cgp", "#!$launcher\n# the Mojolicious test application\napp mojoapp.psgi\n");
my $m = '/apps/mojo.cgp';
($code, $h, $body) = curl(url("$m/"));
my ($mhits, $mpid) = $body =~ /^mojo hits=(\d+) pid=(\d+)$/m;
ok t_cmp($code, 200, 'GET through Mojolicious');
(undef, undef, $body) = curl(url("$m/"));
ok t_cmp($body, "mojo hits=" . (($mhits // 0) + 1) . " pid=" . ($mpid // 0) . "\n", 'the Mojolicious application persists');
(undef, undef, $body) = curl(url("$m/where"));
ok t_cmp($body, "/usr/share/perl5/Mojolicious.pm\n", "Mojolicious is Debian's (libmojolicious-perl)");
($code, $h, $body) = curl('-F', "file=\@$dir/blob.bin", '-F', 'note=hello', url("$m/upload"));
ok t_cmp("$code $body", "200 name=blob.bin size=300000 sha256=$sha note=hello\n", 'Mojolicious: a multipart upload');
($code, $h, $body) = curl('-H', 'Transfer-Encoding: chunked', '-H', 'Content-Type: application/octet-stream',
                          '--data-binary', "\@$dir/blob.bin", url("$m/body"));
ok t_cmp($body, "size=300000 sha256=$sha\n", 'Mojolicious: a chunked upload, byte for byte');
($code, $h, $body) = curl(url("$m/login?user=ann"));
ok t_cmp("$code " . ($h->{location} // ''), qr{^302 (http://[^/]+)?/apps/mojo\.cgp/whoami$},
         'Mojolicious: a redirect under the script');
($code, $h, $body) = curl('-L', '-b', "$dir/mjar", '-c', "$dir/mjar", url("$m/login?user=bob"));
ok t_cmp($body, "user=bob\n", 'Mojolicious: the cookie set with the redirect is read back');
