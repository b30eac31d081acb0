# Issue 22, part 1: AWStats (Debian's awstats package, awstats.pl: a large
# Perl CGI script, unmodified) through the Perl engine, against the same
# file under mod_cgid, in one private httpd: a database built from a fixed
# log, then its report pages. Each page must come with 200 and the same
# type and lines from both; rows with equal counts may come in another order
# (Perl's hash order, which differs between two mod_cgid runs as well,
# and in the engine with the history of a reused hash). One engine process
# serves every page.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir);
use FreePort qw(free_port);
use AppTest qw(write_file curl);
use SideBySide qw(pool_of);

my $awstats = '/usr/lib/cgi-bin/awstats.pl';
my @pages = ('', '&output=allhosts', '&output=lasthosts', '&output=urldetail', '&output=urlentry',
             '&output=browserdetail', '&output=refererpages', '&output=refererentry',
             '&framename=mainleft', '&framename=mainright', '&lang=fr', '&output=allhosts&lang=de',
             '&output=urldetail&filterurl=page1');
plan tests => 3 * @pages + 2,
    need { 'needs awstats (Debian package awstats)' => -f $awstats && -f '/etc/awstats/awstats.conf' };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/awstats";
my $port = free_port();
fresh_dir($dir);
mkdir "$dir/$_" for qw(cgi data);
system('cp', '-p', $awstats, "$dir/cgi/awstats.pl") == 0 or die "cp awstats.pl\n";

# A fixed month of traffic, in time order (AWStats skips what comes out of
# order): 7 hosts, 13 pages, 3 referrers, 5 browsers.
open my $log, '>', "$dir/access.log" or die;
my @mon = qw(Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec);
for my $i (1 .. 400) {
    my @t = gmtime(1604188800 + $i * 6000); # from 2020-11-01 00:00 UTC, every 100 minutes
    printf $log "10.0.0.%d - - [%02d/%s/%d:%02d:%02d:%02d +0000] \"GET /page%d.html HTTP/1.1\" 200 %d "
        . "\"http://ref%d.example/\" \"Mozilla/5.0 (X11; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%d.0\"\n",
        $i % 7 + 1, $t[3], $mon[$t[4]], $t[5] + 1900, $t[2], $t[1], $t[0], $i % 13, $i * 37, $i % 3,
        100 + $i % 5, 100 + $i % 5;
}
close $log;
write_file("$dir/cgi/awstats.test.conf", <<"CONF", 0644);
Include "/etc/awstats/awstats.conf"
LogFile="$dir/access.log"
LogFormat=1
SiteDomain="test.example"
HostAliases="localhost 127.0.0.1"
DirData="$dir/data"
AllowToUpdateStatsFromBrowser=0
DNSLookup=0
CONF
my $upd = `perl '$dir/cgi/awstats.pl' -config=test -update 2>&1`;
my ($new) = $upd =~ /Found (\d+) new qualified records/;
system('chmod', '-R', 'a+rX', $dir);

my $engine = "$vars->{top_dir}/lib/perl/cgiplus-engine-perl";
my $extra = <<"CONF";
LoadModule env_module @{[PrivateHttpd::libexec()]}/mod_env.so
ScriptSock $dir/cgid.sock
ScriptAlias /cgid/ $dir/cgi/
Alias /eng/ $dir/cgi/
# the same hash order on both sides, as far as Perl keeps it
SetEnv PERL_HASH_SEED 0
<Directory $dir/cgi>
    Require all granted
</Directory>
<Location /eng/>
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusEngine $engine
    CGIplusMaxWorkers 1
    CGIplusSetEnv PERL_HASH_SEED 0
</Location>
<Location /status>
    SetHandler cgiplus-status
</Location>
CONF
write_file("$dir/httpd.conf", private_conf($dir, $port, [qw(alias mime cgid)], "TypesConfig /etc/mime.types\n$extra"), 0644);
ok t_cmp(($new // 0) > 300 && private_start("$dir/httpd.conf", $port) ? 1 : 0, 1,
         "the database holds the log's records ($new), and httpd starts with mod_cgid and the Perl engine");

for my $q (@pages) {
    my %r;
    for my $side (qw(cgid eng)) {
        my ($code, $h, $body) = curl("http://127.0.0.1:$port/$side/awstats.pl?config=test&month=11&year=2020$q");
        $r{$side} = { code => $code, type => $h->{'content-type'} // '',
                      lines => join("\n", sort split /\n/, $body), len => length $body };
    }
    my ($c, $e) = @r{qw(cgid eng)};
    ok t_cmp("$c->{code} $e->{code}", '200 200', "awstats.pl$q: 200 from both");
    ok t_cmp($e->{type}, $c->{type}, "awstats.pl$q: the same type");
    ok t_cmp($e->{lines} eq $c->{lines} ? 'same' : "differ ($e->{len} against $c->{len} bytes)", 'same',
             "awstats.pl$q: the same lines ($c->{len} bytes)");
}

my $pool = pool_of("http://127.0.0.1:$port/status", $engine);
ok t_cmp($pool ? "spawns $pool->{counters}{spawns}, served " . ($pool->{counters}{served} >= @pages ? 'all' : $pool->{counters}{served})
               : 'no pool', 'spawns 1, served all', 'one engine process served every page');
private_stop("$dir/httpd.pid");
