# A Flask application run as CGI the way Flask's documentation deploys it
# (wsgiref.handlers.CGIHandler().run(app): t/htdocs/apps/flaskcgi.cgi),
# unmodified, through the Python engine and through CGIplusCompat, each
# against mod_cgid serving the same file: routes, a query, a form, an
# upload, a session cookie and its redirect, a client's cookie, headers,
# an abort, an exception, a 404. One engine process serves them, and what
# one request sent (a header, a cookie, a session, a body's type) is not
# in the next one's: wsgiref's handler takes os.environ as it is when the
# module is first imported and adds each request's to that.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_start private_stop fresh_dir);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(cgid_engine_conf same_as_cgid);

my $f = '/flaskcgi.cgi';
my @steps = (
    ["$f/"],
    ["$f/?x=caf%C3%A9%3Cb%3E"],
    ["$f/hello/w%C3%B6rld"],
    ["$f/form?q=1", '--data', 'a=1&a=2&b=three'],
    ["$f/upload", '-F', 'f=@UPLOAD;type=application/x-test'],
    ["$f/upload", '-F', 'g=1'],
    ["$f/login?u=ann", 'JAR'],
    ["$f/whoami", 'JAR'],
    ["$f/whoami"],
    ["$f/login", '--data', 'u=bob', '-L'],
    ["$f/cookie", '-H', 'Cookie: flavour=oat', '-H', 'X-Test: one'],
    ["$f/cookie"],
    ["$f/env", '-H', 'Cookie: a=b', '-H', 'X-Test: two', '-H', 'Referer: http://x/'],
    ["$f/env"],
    ["$f/teapot"],
    ["$f/die"],
    ["$f/no/such/route"],
    ["$f/form", '-X', 'PUT'],
    ["$f/hello/x", '-I'],
);
plan tests => 2 * 6 * @steps + 4,
    need { 'needs Flask for /usr/bin/python3 (Debian package python3-flask)'
               => system('/usr/bin/python3', '-c', 'import flask') == 0 };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/flaskcgi";
my ($gport, $cport, $eport) = free_ports(3);
fresh_dir($dir);
my $apps = "$vars->{top_dir}/t/htdocs/apps";
my $upload = "$dir/upload.bin";
write_file($upload, join('', map { chr(($_ * 37) % 256) } 1 .. 30_000), 0644);
for my $s (@steps) { s/UPLOAD/$upload/ for @$s }

my %port = (cgid => $gport, compat => $cport, engine => $eport);
write_file("$dir/httpd.conf", cgid_engine_conf($dir, \%port, $apps, ['flaskcgi.cgi'],
                                                "$vars->{top_dir}/lib/python/cgiplus-engine-python"), 0644);
ok t_cmp(private_start("$dir/httpd.conf", $cport), 1, 'a private httpd: mod_cgid, the drop-in, the engine');

sub fetch {
    my ($who, $path, @args) = @_;
    my $jar = "$dir/jar-$who";
    @args = map { $_ eq 'JAR' ? ('-c', $jar, '-b', $jar) : $_ } @args;
    my ($code, $h, $body) = curl(@args, "http://127.0.0.1:$port{$who}$path");
    $body =~ s/127\.0\.0\.1:$port{$who}/127.0.0.1:PORT/g;
    my $cookie = $h->{'set-cookie'} // '';
    $cookie =~ s/^(session)=[^;]*/$1=SIGNED/;     # signed, with a time stamp
    my $loc = $h->{location} // '';
    $loc =~ s/127\.0\.0\.1:$port{$who}/127.0.0.1:PORT/g;
    my $own = join ' ', map { "$_: $h->{$_}" } sort grep { /^x-|^vary$/ } keys %$h;
    return { code => $code, type => $h->{'content-type'} // '', loc => $loc,
             cookie => $cookie, own => $own, body => $body };
}

same_as_cgid(\@steps, \&fetch, 'X- and Vary headers');

my @pids = map { fetch('engine', $_)->{body} =~ /^pid=(\d+)$/ ? $1 : 0 } ("$f/pid") x 3;
ok t_cmp("@pids", "$pids[0] $pids[0] $pids[0]", 'one engine process serves the requests');
# What one request sent is not in the next one's: a cookie, a header, a
# body's type, another client's session.
my @leak = (fetch('engine', "$f/env", '-H', 'Cookie: sess=private', '-H', 'X-Test: mine',
                  '-H', 'Authorization: Basic YTpi', '--data', 'a=1')->{body},
            fetch('engine', "$f/env")->{body});
ok t_cmp($leak[1], "HTTP_COOKIE=-\nHTTP_X_TEST=-\nHTTP_REFERER=-\nCONTENT_TYPE=-\nHTTP_AUTHORIZATION=-\n"
                 . "QUERY_STRING=\nPATH_INFO=/env\nREQUEST_METHOD=GET\n",
         "a cookie, a header, a body's type of one request are not in the next one's environ");
fetch('engine', "$f/login?u=alice", 'JAR');
ok t_cmp(fetch('engine', "$f/whoami")->{body}, "user=nobody\n", "a client without a cookie is not the last client's session");
private_stop("$dir/httpd.pid");
