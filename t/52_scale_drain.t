# Scale-out (docs/SCALING.md): two identical nodes (httpd + module + its own
# runner, shared nothing) behind a mod_proxy_balancer front, all private
# instances on 127.0.0.1. Under continuous load one node is drained
# (status=+D and a graceful restart of the front), then stopped with
# graceful-stop: every request succeeds, and the drained node gets no new
# ones.
use strict;
use lib "t/lib";
use FreePort qw(free_port free_ports);
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use POSIX ();
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PrivHttpd qw(httpd_start httpd_stop httpd_graceful);

plan tests => 7;

my $vars = Apache::Test::config()->{vars};
my $docroot = $vars->{documentroot};
my ($p1, $p2, $pf) = free_ports(3);

sub node_conf {
    my ($name) = @_;
    return <<"CONF";
Alias /pool/ $docroot/pool/
<Directory $docroot/pool>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusSetEnv POOL_$name $name
    CGIplusMinIdle 2
</Directory>
CONF
}
my @nodes = (httpd_start('scale-n1', $p1, node_conf('n1')), httpd_start('scale-n2', $p2, node_conf('n2')));

sub front_conf {
    my ($drain) = @_;
    my $d = $drain ? ' status=+D' : '';
    return <<"CONF";
<Proxy balancer://nodes>
    BalancerMember http://127.0.0.1:$p1 route=n1
    BalancerMember http://127.0.0.1:$p2 route=n2$d
    ProxySet lbmethod=byrequests
</Proxy>
ProxyPass /app balancer://nodes/pool/app.pl
CONF
}
my @mods = qw(proxy proxy_http proxy_balancer slotmem_shm lbmethod_byrequests);
my $front = httpd_start('scale-front', $pf, front_conf(0), @mods);

# Clients: fresh connections, one request at a time each, for $secs seconds;
# each line of the result file: start time, status, node.
my $secs = 5;
my $t0 = time;
my @kids;
for my $k (1 .. 4) {
    my $pid = fork // die;
    if (!$pid) {
        open my $out, '>', "$front/client$k" or POSIX::_exit(1);
        while (time - $t0 < $secs) {
            my $t = time;
            my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$pf", Timeout => 10);
            my $resp = '';
            if ($s) {
                print $s "GET /app?k=$k HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
                local $/;
                $resp = <$s> // '';
            }
            my ($code) = $resp =~ m{^HTTP/1\.\d (\d{3})};
            my ($node) = $resp =~ /pool=(n\d)/;
            printf $out "%.3f %s %s\n", $t - $t0, $code // 0, $node // '-';
        }
        close $out;
        POSIX::_exit(0);
    }
    push @kids, $pid;
}

# At 1.5 s drain node 2: the front's new configuration, gracefully; at 3 s
# stop node 2 gracefully (it finishes what it holds).
sleep 1.5 - (time - $t0);
my $front_conf = "$front/httpd.conf";
my $text = do { local (@ARGV, $/) = ($front_conf); <> };
my $drained = $text =~ s/route=n2\n/route=n2 status=+D\n/r;
open my $fh, '>', $front_conf or die;
print $fh $drained;
close $fh;
my $t_drain = time - $t0;
my $logged = length PrivHttpd::httpd_log($front);
httpd_graceful($front);
# The old children serve on while the parent reads the new configuration
# (slow under the sanitizers): the drain is in force once it says so.
for (1 .. 200) { last if substr(PrivHttpd::httpd_log($front), $logged) =~ /resuming normal operations/; sleep 0.05 }
my $t_resumed = time - $t0;
sleep 3 - (time - $t0);
my $t_stop = time - $t0;
system($vars->{httpd}, '-f', "$nodes[1]/httpd.conf", '-k', 'graceful-stop');
waitpid $_, 0 for @kids;

my @res;
for my $k (1 .. 4) {
    open my $in, '<', "$front/client$k" or die;
    push @res, map { [split] } <$in>;
}
my @bad = grep { $_->[1] != 200 } @res;
ok t_cmp(scalar(@res) > 100 ? 1 : 0, 1, scalar(@res) . ' requests under load');
ok t_cmp(scalar @bad, 0, 'no request lost: every one answered 200' .
         (@bad ? " (first failure at $bad[0][0] s: $bad[0][1])" : ''));
my @before = grep { $_->[0] < $t_drain } @res;
ok t_cmp((grep { $_->[2] eq 'n1' } @before) > 0 && (grep { $_->[2] eq 'n2' } @before) > 0 ? 1 : 0, 1,
         'before the drain both nodes serve');
# the front's old children may finish requests they had already routed
my @late = grep { $_->[0] > $t_resumed + 1 && $_->[2] eq 'n2' } @res;
ok t_cmp(scalar @late, 0, 'a second after the drain is in force, node 2 gets no new request');
my @after = grep { $_->[0] > $t_stop } @res;
ok t_cmp(scalar(@after) > 10 && !(grep { $_->[2] ne 'n1' } @after) ? 1 : 0, 1,
         'with node 2 stopped, node 1 serves all (' . scalar(@after) . ' requests)');
my $gone = 0;
for (1 .. 100) { last if ($gone = !-e "$nodes[1]/httpd.pid"); sleep 0.1 }
ok t_cmp($gone, 1, 'node 2 has stopped (graceful-stop)');
my $err = PrivHttpd::httpd_log($front);
ok t_cmp($err =~ /AH01114|AH00957|AH01102/ ? 1 : 0, 0, 'the front logged no failed proxy connection');

httpd_stop($_) for $front, $nodes[0];
