# Security: a script of one site (virtual host) must never run in the
# interpreter of another site's engine pool. An engine runs every script
# its pool is given in one process: scripts of one pool share their
# interpreter, and one of them can wrap the engine's own code and watch
# every later request (another script's clients' cookies, bodies, the
# variables of their requests). So pools are per virtual host, as mod_fcgid
# never gives a virtual host's request to another's processes (its process
# class includes the virtual host). The Python engine and php-cgi
# (CGIplusEngine php) too: the same file on both sites, two processes.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use JSON::PP ();
use lib 't/htdocs/pool/lib';
use PoolTest qw(wire_connect wire_request wire_frames);

my $php = -x '/usr/bin/php-cgi';
plan tests => 12;

my $cfg = Apache::Test::config();

sub get {
    my ($vh, $path, $cookie) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $vh ? $cfg->port($vh) : $cfg->{vars}{port},
                                  Proto => 'tcp', Timeout => 30) or die "connect: $!";
    print $s "GET $path HTTP/1.0\r\nHost: 127.0.0.1\r\n"
        . ($cookie ? "Cookie: $cookie\r\n" : '') . "\r\n";
    local $/;
    my $r = <$s> // '';
    my ($code) = $r =~ m{^HTTP/\S+ (\d+)};
    my %f = map { /^(\w+)=(.*)$/ ? ($1, $2) : () } split /\n/, ($r =~ /\r\n\r\n(.*)/s)[0] // '';
    return ($code // 0, \%f);
}

my ($c1, $a1) = get('', '/sitea/hook.pl');
ok t_cmp($c1, 200, "site A's script answers (it hooks its engine)");
my ($c2, $b1) = get('cgiplus_site_b', '/siteb/login.pl', 'session=site-b-secret');
ok t_cmp($c2, 200, "site B's script answers");
ok t_cmp($b1->{pid} ne $a1->{pid} ? 1 : 0, 1,
         "site B's script runs in another interpreter than site A's ($a1->{pid} vs $b1->{pid})");
my ($c3, $a2) = get('', '/sitea/hook.pl');
ok t_cmp($c3, 200, "site A's script answers again");
ok t_cmp(($a2->{seen} // '') =~ /site-b-secret/ ? 'saw it' : 'did not',
         'did not', "site A's script never sees site B's requests (seen: $a2->{seen})");
# The price stays one interpreter per site: its other scripts share it.
my (undef, $a3) = get('', '/sitea/pid.pl');
ok t_cmp($a3->{pid}, $a1->{pid}, "another script of site A runs in site A's interpreter");
# The same for the Python engine and php-cgi (CGIplusEngine php): the same
# file on both sites runs in two processes, one per site.
# (php needs Debian's php-cgi: without it that assertion is skipped, said
# aloud, and a skip fails ./run-tests, which installs it.)
for my $e (['py', 'pid.py'], ['php', 'pid.php']) {
    my ($kind, $file) = @$e;
    if ($kind eq 'php' && !$php) {
        skip 'needs php-cgi (Debian package php-cgi)';
        next;
    }
    my ($ca, $fa) = get('', "/site-$kind/$file");
    my ($cb, $fb) = get('cgiplus_site_b', "/site-$kind/$file");
    my ($ca2, $fa2) = get('', "/site-$kind/$file");
    ok t_cmp("$ca $cb $ca2 " . (($fa->{pid} // 'a') ne ($fb->{pid} // 'a') && ($fa->{pid} // '') eq ($fa2->{pid} // '')
                                ? 'apart' : "pids $fa->{pid} $fb->{pid} $fa2->{pid}"),
             '200 200 200 apart', "$kind: one engine process per site for the same file");
}
# The status page names each engine pool's site.
my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$cfg->{vars}{port}", Timeout => 30) or die "connect: $!";
print $s "GET /cgiplus-status?json HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
my $st = do { local $/; my $t = <$s> // ''; $t =~ s/\A.*?\r\n\r\n//s; eval { JSON::PP::decode_json($t) } } // {};
my %site_of;
for my $p (@{ $st->{pools} // [] }) {
    for my $sc (@{ $p->{scripts} // [] }) {
        $site_of{$1} = $p->{site} // '' if $sc->{script} =~ m{/(hook|login)\.pl$};
    }
}
ok t_cmp(($site_of{hook} // '') ne '' && ($site_of{login} // '') ne '' && $site_of{hook} ne $site_of{login}
         ? 1 : 0, 1, "the status page names each pool's site ($site_of{hook} | $site_of{login})");

# BEGIN's site is bounded as the protocol says (docs/PROTOCOL.md): no NUL,
# under 4096 bytes; else the request is refused (bad-request, 7).
my $script = "$cfg->{vars}{documentroot}/sitea/pid.pl";
my $w = wire_connect();
my @cases = (["a\0b", 7, 'a site with a NUL'], ['x' x 4096, 7, 'a site of 4096 bytes'],
             ['x' x 4095, 0, 'a site of 4095 bytes']);
for my $i (0 .. $#cases) {
    my ($site, $want, $what) = @{ $cases[$i] };
    wire_request($w, $i + 1, [script => $script, uri => '/x', site => $site], [CONTENT_LENGTH => 0]);
    my @f = wire_frames($w, 50, 10);
    my $end = (grep { $_->{type} == 8 } @f)[-1];
    ok t_cmp($end ? $end->{outcome} : -1, $want, "$what: " . ($want ? 'refused (bad-request)' : 'served'));
}
