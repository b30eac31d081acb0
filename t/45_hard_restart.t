# A hard restart (SIGHUP to httpd's parent, apachectl -k restart) while
# requests wait for their script's first line: the event MPM closes the
# connections of its busy threads at once, and each of those requests then
# meets a client socket without a descriptor. It ends as a lost client;
# the httpd child must not crash on it (before: SIGSEGV in the response
# buffer, which took the socket-less connection for HTTP/2). On the
# direct path, relayed by the runner and under CGIplusCompat, on a private
# httpd (the signal goes to its parent only).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use Time::HiRes qw(sleep);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir);
use FreePort qw(free_port);

plan tests => 5;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/hard-restart";
my $pool = "$vars->{documentroot}/pool";
# one a failed run left behind is ours to stop
private_stop("$dir/httpd.pid") if -e "$dir/httpd.pid";
END { private_stop("$dir/httpd.pid") }
fresh_dir($dir);
mkdir "$dir/cgi";
chmod 0755, "$dir/cgi";
open my $sh, '>', "$dir/cgi/slow.sh" or die "slow.sh: $!";
print $sh "#!/bin/sh\nsleep 1\nprintf 'Content-Type: text/plain\\r\\n\\r\\nslow\\n'\n";
close $sh;
chmod 0755, "$dir/cgi/slow.sh";

my $port = free_port();
open my $cf, '>', "$dir/httpd.conf" or die "httpd.conf: $!";
print $cf private_conf($dir, $port, ['alias'], <<"CONF");
Alias /direct/ $pool/
Alias /relay/ $pool/
<Directory $pool>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
<Location /relay/>
    CGIplusDirect off
</Location>
ScriptAlias /compat/ $dir/cgi/
<Directory $dir/cgi>
    Require all granted
</Directory>
<Location /compat/>
    CGIplusCompat on
</Location>
CONF
close $cf;

sub log_text { open my $fh, '<', "$dir/error_log" or return ''; local $/; return <$fh> }
sub parent { open my $fh, '<', "$dir/httpd.pid" or return 0; my $p = <$fh>; return $p ? $p + 0 : 0 }

# One GET on a connection of its own; the socket, for the caller to read.
sub start_get {
    my ($path) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 5) or return;
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    return $s;
}

sub get_code {
    my ($path) = @_;
    my $s = start_get($path) or return 0;
    local $/;
    my $r = <$s> // '';
    return $r =~ m{^HTTP/1\.1 (\d+)} ? $1 : 0;
}

sub wait_up {
    for (1 .. 100) {
        return 1 if get_code('/compat/slow.sh') == 200;
        sleep 0.1;
    }
    return 0;
}

ok t_cmp(private_start("$dir/httpd.conf", $port) ? 1 : 0, 1, 'the private httpd started');
# warm workers: the second request of a pool may take the direct path
for (1 .. 2) { get_code('/direct/app.pl'); get_code('/relay/app.pl') }

for my $round (1 .. 3) {
    my @socks = map { start_get($_) } '/direct/app.pl?sleep=1', '/relay/app.pl?sleep=1',
                                      '/compat/slow.sh';
    sleep 0.4; # each on its worker, waiting for the first line
    kill 'HUP', parent();
    sleep 0.2;
    close $_ for grep { defined } @socks;
    wait_up();
    sleep 1.5; # the old children's requests end
}

ok t_cmp(scalar(() = log_text() =~ /exit signal Segmentation fault/g), 0,
   'no httpd child crashed on a request whose connection the restart closed');
ok t_cmp(get_code('/direct/app.pl'), 200, 'the direct path serves after the restarts');
ok t_cmp(get_code('/relay/app.pl'), 200, 'the relayed path serves after the restarts');
ok t_cmp(get_code('/compat/slow.sh'), 200, 'CGIplusCompat serves after the restarts');
