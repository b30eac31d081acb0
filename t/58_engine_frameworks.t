# Two Perl web frameworks' CGI scripts, unmodified, through the Perl engine
# and through CGIplusCompat, each against mod_cgid, in three virtual hosts
# of one private httpd serving them at the same paths: a CGI::Application
# script (t/htdocs/apps/cgiapp.cgi: run modes, a form, a redirect, an
# upload, a cookie, its error mode, headers of its own) and a
# Mojolicious::Lite one run as CGI (t/htdocs/apps/mojolite.cgi: routes, a
# form, an upload, a session cookie and its redirect, a stream written with
# ->write, errors). Every step has mod_cgid's status, type, Location,
# Set-Cookie, own headers and body on both; one engine process serves
# them; what one request sent (a parameter, a cookie, a session) is not in
# the next.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_start private_stop fresh_dir);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(cgid_engine_conf same_as_cgid);

my @steps = (
    ['/cgiapp.cgi'],
    ['/cgiapp.cgi?x=caf%C3%A9%3Cb%3E'],
    ['/cgiapp.cgi', '--data', 'rm=form&a=1&a=2&b=three'],
    ['/cgiapp.cgi?rm=form&q=1'],
    ['/cgiapp.cgi?rm=go'],
    ['/cgiapp.cgi?rm=go', '-L'],
    ['/cgiapp.cgi', '-F', 'rm=upload', '-F', 'f=@UPLOAD;type=application/x-test'],
    ['/cgiapp.cgi', '-F', 'rm=upload'],
    ['/cgiapp.cgi?rm=cookie&v=7', '-H', 'Cookie: sess=abc'],
    ['/cgiapp.cgi?rm=cookie&v=8'],
    ['/cgiapp.cgi?rm=fail'],
    ['/cgiapp.cgi?rm=made'],
    ['/cgiapp.cgi?rm=made', '-I'],
    ['/mojolite.cgi'],
    ['/mojolite.cgi/hello/w%C3%B6rld'],
    ['/mojolite.cgi/json?q=a%26b'],
    ['/mojolite.cgi/form', '--data', 'a=1&a=2&b=caf%C3%A9'],
    ['/mojolite.cgi/upload', '-F', 'f=@UPLOAD;type=application/x-test'],
    ['/mojolite.cgi/login?u=ann', 'JAR'],
    ['/mojolite.cgi/whoami', 'JAR'],
    ['/mojolite.cgi/whoami'],
    ['/mojolite.cgi/away'],
    ['/mojolite.cgi/stream'],
    ['/mojolite.cgi/teapot'],
    ['/mojolite.cgi/cookie'],
    ['/mojolite.cgi/cookie', '-H', 'Cookie: flavour=rye'],
    ['/mojolite.cgi/die'],
    ['/mojolite.cgi/no/such/route'],
    ['/mojolite.cgi/form', '-X', 'PUT'],
    ['/mojolite.cgi/hello/x', '-I'],
);
plan tests => 2 * 6 * @steps + 3,
    need { 'needs CGI::Application (Debian package libcgi-application-perl)' => eval { require CGI::Application; 1 },
           'needs Mojolicious (Debian package libmojolicious-perl)' => eval { require Mojolicious::Lite; 1 },
           'needs CGI::Compile (Debian package libcgi-compile-perl)' => eval { require CGI::Compile; 1 } };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/frameworks";
my ($gport, $cport, $eport) = free_ports(3);
fresh_dir($dir);
my $apps = "$vars->{top_dir}/t/htdocs/apps";
my $upload = "$dir/upload.bin";
write_file($upload, join('', map { chr(($_ * 37) % 256) } 1 .. 30_000), 0644);
for my $s (@steps) { s/UPLOAD/$upload/ for @$s }

my %port = (cgid => $gport, compat => $cport, engine => $eport);
# the Perl engine: one process for both scripts
write_file("$dir/httpd.conf", cgid_engine_conf($dir, \%port, $apps, [qw(cgiapp.cgi mojolite.cgi)],
                                                "$vars->{top_dir}/lib/perl/cgiplus-engine-perl"), 0644);
ok t_cmp(private_start("$dir/httpd.conf", $cport), 1, 'a private httpd: mod_cgid, the drop-in, the engine');

sub fetch {
    my ($who, $path, @args) = @_;
    my $jar = "$dir/jar-$who";
    @args = map { $_ eq 'JAR' ? ('-c', $jar, '-b', $jar) : $_ } @args;
    my ($code, $h, $body) = curl(@args, "http://127.0.0.1:$port{$who}$path");
    $body =~ s/Request ID: [\w-]+/Request ID: X/g;       # Mojo's, random
    $body =~ s/127\.0\.0\.1:$port{$who}/127.0.0.1:PORT/g;
    my $cookie = $h->{'set-cookie'} // '';
    $cookie =~ s/^(mojolicious)=[^;]*/$1=SIGNED/;     # signed, with its expiry
    $cookie =~ s/expires=[^;]*/expires=TIME/;
    my $own = join ' ', map { "$_: $h->{$_}" } sort grep { /^x-/ } keys %$h;
    return { code => $code, type => $h->{'content-type'} // '', loc => $h->{location} // '',
             cookie => $cookie, own => $own, body => $body };
}

same_as_cgid(\@steps, \&fetch, 'X- headers');

my @pids = map { fetch('engine', $_)->{body} =~ /^pid=(\d+)$/ ? $1 : 0 } ('/mojolite.cgi/pid') x 3;
ok t_cmp("@pids", "$pids[0] $pids[0] $pids[0]", 'one engine process serves the requests');
# What one request sent is not in the next one's.
my @leak = (fetch('engine', '/cgiapp.cgi?x=secret')->{body}, fetch('engine', '/cgiapp.cgi')->{body},
            fetch('engine', '/cgiapp.cgi?rm=cookie', '-H', 'Cookie: sess=private')->{body},
            fetch('engine', '/cgiapp.cgi?rm=cookie')->{body});
ok t_cmp("@leak", "<p>home, x=secret</p>\n <p>home, x=none</p>\n seen cookie: private\n seen cookie: none\n",
         'a parameter or a cookie of one request is not in the next');
private_stop("$dir/httpd.pid");
