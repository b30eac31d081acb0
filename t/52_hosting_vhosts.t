# Shared hosting (docs/SCALING.md, "Many sites on one node"): a private
# httpd with 40 name-based virtual hosts on one port, each its own
# DocumentRoot and `CGIplusEngine php`, as a hosting panel writes them. An
# engine's pools are per site.
# - A graceful restart with the configuration unchanged keeps every site's
#   pool, and a warm one (CGIplusMinIdle) warm, though only one site gets
#   requests after it: one site's pool never supersedes another's.
# - The direct path's table is bounded (CGIplusQueueDepth 2048 here: 32
#   pools fill its waiter entries). After a graceful restart that changes
#   the settings, the new pools are made while the old ones still hold the
#   table; once the old ones are freed the new ones take their room, rather
#   than being relayed for as long as they are used.
use strict;
use warnings FATAL => 'all';
use lib 't/lib';
use FreePort qw(free_port);
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use JSON::PP ();
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PrivHttpd qw(httpd_start httpd_graceful httpd_log);

plan tests => 10, need { 'needs php-cgi (Debian package php-cgi)' => -x '/usr/bin/php-cgi' };

my $n = 40;
my $port = free_port();
my $vars = Apache::Test::config()->{vars};
my $sites = "$vars->{t_logs}/hosting-sites";
system('rm', '-rf', $sites);
mkdir $sites or die "$sites: $!";
chmod 0755, $sites;

sub conf {
    my ($extra) = @_;
    my $c = "CGIplusQueueDepth 2048\n$extra<Location /cgiplus-status>\n    SetHandler cgiplus-status\n"
        . "</Location>\n";
    for my $i (1 .. $n) {
        my $d = "$sites/s$i";
        $c .= "<VirtualHost 127.0.0.1:$port>\n    ServerName s$i.test\n    DocumentRoot $d\n"
            . "    <Directory $d>\n        Require all granted\n        CGIplusEngine php\n"
            . ($i == 2 ? "        CGIplusMinIdle 1\n" : '') . "    </Directory>\n</VirtualHost>\n";
    }
    return $c;
}
for my $i (1 .. $n) {
    mkdir "$sites/s$i";
    open my $f, '>', "$sites/s$i/index.php" or die;
    print $f "<?php echo 'site $i pid ', getmypid(), \"\\n\";\n";
}
my $dir = httpd_start('hosting', $port, conf(''));

sub get {
    my ($host, $path) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 20) or return (0, '');
    print $s "GET $path HTTP/1.0\r\nHost: $host\r\n\r\n";
    local $/;
    my $r = <$s> // '';
    my ($code) = $r =~ m{^HTTP/\S+ (\d+)};
    return ($code // 0, ($r =~ /\r\n\r\n(.*)/s)[0] // '');
}
sub status { my ($c, $b) = get('s1.test', '/cgiplus-status?json'); return $c == 200 ? JSON::PP->new->decode($b) : { pools => [] } }
sub site_of { my ($p) = @_; return ($p->{site} // '') =~ /^(s\d+)\.test/ ? $1 : '' }
sub wait_until { my ($f, $secs) = @_; my $end = time + $secs; until ($f->()) { return 0 if time > $end; sleep 0.2 } 1 }
sub gen2 { my ($p) = @_; return grep { $_ eq 'HOSTING_GEN2' } @{ $p->{settings}{env} } }

my @bad = grep { my ($c, $b) = get("s$_.test", '/index.php'); $c != 200 || $b !~ /^site $_ pid/ } 1 .. $n;
ok t_cmp("@bad", '', "every one of the $n sites answers from its own pool");
my %id = map { site_of($_) => $_->{id} } @{ status()->{pools} };
ok t_cmp(scalar(keys %id), $n, "$n pools, one a site");

# A graceful restart, the same configuration; only s1 gets requests for
# longer than a superseded pool waits (3 s).
my $logged = length httpd_log($dir);
httpd_graceful($dir);
wait_until(sub { substr(httpd_log($dir), $logged) =~ /resuming normal operations/ }, 20);
my $t0 = time;
get('s1.test', '/index.php') while time - $t0 < 4.5;
my $st = status();
my @gone = grep { my $s = $_; !grep { site_of($_) eq $s && $_->{id} == $id{$s} && !$_->{retired} } @{ $st->{pools} } } sort keys %id;
ok t_cmp(scalar @gone, 0, 'after a graceful restart every site keeps its pool' . (@gone ? " (gone: @gone[0 .. ($#gone < 4 ? $#gone : 4)])" : ''));
my ($warm) = grep { site_of($_) eq 's2' && !$_->{retired} } @{ $st->{pools} };
ok t_cmp($warm && wait_until(sub { ($warm) = grep { site_of($_) eq 's2' && !$_->{retired} } @{ status()->{pools} };
                                   $warm && grep { $_->{state} eq 'idle' } @{ $warm->{workers} } }, 5) ? 1 : 0, 1,
         "and s2's warm pool (CGIplusMinIdle 1) has its idle worker again, without a request");

# The table: 32 pools of queue depth 2048 fill its waiter entries.
my @direct = grep { $_->{direct} } @{ status()->{pools} };
ok t_cmp(scalar @direct, 32, '32 of the 40 pools are on the direct path (the table is full)');

# A graceful restart that changes every site's settings: 40 new pools,
# made while the old ones hold the table.
open my $fh, '>', "$dir/httpd.conf.new" or die;
my $text = do { local (@ARGV, $/) = ("$dir/httpd.conf"); <> };
$text =~ s/CGIplusQueueDepth 2048\n/CGIplusQueueDepth 2048\nCGIplusSetEnv HOSTING_GEN2 1\n/ or die;
print $fh $text;
close $fh;
rename "$dir/httpd.conf.new", "$dir/httpd.conf" or die;
$logged = length httpd_log($dir);
httpd_graceful($dir);
wait_until(sub { substr(httpd_log($dir), $logged) =~ /resuming normal operations/ }, 20);
@bad = ();
for my $round (1 .. 2) {
    push @bad, grep { my ($c, $b) = get("s$_.test", '/index.php'); $c != 200 || $b !~ /^site $_ pid/ } 1 .. $n;
}
ok t_cmp("@bad", '', 'after it every site answers, from its new pool');
ok t_cmp(wait_until(sub { my @p = @{ status()->{pools} }; @p == $n && !grep { !gen2($_) } @p }, 15) ? 1 : 0, 1,
         'the old pools retire and are freed');
my @got;
wait_until(sub {
    get("s$_.test", '/index.php') for 1 .. $n;
    @got = grep { $_->{direct} && gen2($_) } @{ status()->{pools} };
    @got == 32 }, 10);
ok t_cmp(scalar(@got), 32, 'and 32 of the new pools take the room they left on the direct path');
# An old pool turned away too may get a freed entry before it retires
# (and say so), depending on the order of the sites' first requests.
my %said = map { $_ => 1 } substr(httpd_log($dir), $logged)
    =~ /CGIPLUS2508: pool #(\d+) of \/usr\/bin\/php-cgi: room in the direct path's table now/g;
ok t_cmp(join(' ', map { $_->{id} } grep { !$said{$_->{id}} } @got), '', 'each says so (2508)');
@bad = grep { my ($c, $b) = get("s$_.test", '/index.php'); $c != 200 || $b !~ /^site $_ pid/ } 1 .. $n;
ok t_cmp("@bad", '', 'and every site still answers');
