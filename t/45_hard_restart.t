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
use Time::HiRes qw(sleep);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_dir private_log
                    private_start_get private_get resp_code pid_in);
use FreePort qw(free_port);

plan tests => 5;

my $vars = Apache::Test::config()->{vars};
my $dir = private_dir('hard-restart');
my $pool = "$vars->{documentroot}/pool";
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

sub wait_up {
    for (1 .. 100) {
        return 1 if resp_code(private_get($port, '/compat/slow.sh')) == 200;
        sleep 0.1;
    }
    return 0;
}

ok t_cmp(private_start("$dir/httpd.conf", $port) ? 1 : 0, 1, 'the private httpd started');
# warm workers: the second request of a pool may take the direct path
for (1 .. 2) { private_get($port, '/direct/app.pl'); private_get($port, '/relay/app.pl') }

for my $round (1 .. 3) {
    my @socks = map { private_start_get($port, $_) } '/direct/app.pl?sleep=1',
                                                     '/relay/app.pl?sleep=1', '/compat/slow.sh';
    sleep 0.4; # each on its worker, waiting for the first line
    kill 'HUP', pid_in("$dir/httpd.pid");
    sleep 0.2;
    close $_ for grep { defined } @socks;
    wait_up();
    sleep 1.5; # the old children's requests end
}

ok t_cmp(scalar(() = private_log($dir) =~ /exit signal Segmentation fault/g), 0,
   'no httpd child crashed on a request whose connection the restart closed');
ok t_cmp(resp_code(private_get($port, '/direct/app.pl')), 200, 'the direct path serves after the restarts');
ok t_cmp(resp_code(private_get($port, '/relay/app.pl')), 200, 'the relayed path serves after the restarts');
ok t_cmp(resp_code(private_get($port, '/compat/slow.sh')), 200, 'CGIplusCompat serves after the restarts');
