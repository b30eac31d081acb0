# Issue 22, part 1: Mercurial's hgweb.cgi (Debian's mercurial package: its
# example CGI script, with the one line its comment says to edit, the
# repository's path) through the Python engine, against the same file
# under mod_cgid: the same status, type and body (the port aside) for a
# set of pages in two virtual hosts serving it at the same path; then hg
# itself clones through the engine and pushes a changeset (a POST body),
# which the engine's pages show. hgweb keeps sys.stdout.buffer and
# sys.stdin.buffer from its first import: the engine's streams must be the
# current request's in every later one. One engine process serves it all.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(same_pages pool_of);

my $example = '/usr/share/doc/mercurial-common/examples/hgweb.cgi';
my @pages = ('', 'log', 'shortlog', 'graph', 'tags', 'branches', 'rev/tip', 'rev/0',
             'file/tip', 'file/tip/README', 'raw-file/tip/README', 'diff/tip/README',
             'annotate/tip/README', 'comparison/tip/README', 'atom-log', 'rss-log',
             'json-log', 'log?rev=second', 'archive/tip.tar.gz', 'rev/nosuch', 'nosuch');
plan tests => 3 * @pages + 6,
    need { 'needs mercurial (Debian package mercurial)' => -f $example && -x '/usr/bin/hg' };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/hgweb";
my ($cport, $eport) = free_ports(2);
fresh_dir($dir);
mkdir "$dir/cgi";
my ($uid, $gid) = (getpwnam($vars->{user}))[2, 3];

# A repository with fixed dates, pushable over HTTP, owned by the workers'
# user (Mercurial trusts only its owner's .hg/hgrc).
local $ENV{HGUSER} = 'Ann <ann@example.org>';
local $ENV{HGRCPATH} = '';
sub hg { system('hg', '-q', @_) == 0 or die "hg @_ failed\n" }
hg('init', "$dir/repo");
write_file("$dir/repo/README", "first line\n", 0644);
hg('-R', "$dir/repo", 'add', "$dir/repo/README");
hg('-R', "$dir/repo", 'commit', '-d', '2020-01-02 10:00 +0000', '-m', 'first commit');
write_file("$dir/repo/README", "first line\nsecond line \xc3\xa9\n", 0644);
hg('-R', "$dir/repo", 'commit', '-d', '2020-02-03 11:00 +0000', '-m', "second commit, caf\xc3\xa9");
hg('-R', "$dir/repo", 'tag', '-d', '2020-02-03 11:00 +0000', 'v1');
write_file("$dir/repo/.hg/hgrc", "[web]\nallow_push = *\npush_ssl = False\n", 0644);
open my $in, '<', $example or die "$example: $!";
my $cgi = do { local $/; <$in> };
close $in;
my $edits = $cgi =~ s{^config = b"/path/to/repo/or/config"$}{config = b"$dir/repo"}m;
write_file("$dir/cgi/hgweb.cgi", $cgi, 0755);
system('chown', '-R', "$uid:$gid", "$dir/repo", "$dir/cgi") if $> == 0;

my $engine = "$vars->{top_dir}/lib/python/cgiplus-engine-python";
my $extra = <<"CONF";
LoadModule alias_module @{[PrivateHttpd::libexec()]}/mod_alias.so
LoadModule mime_module @{[PrivateHttpd::libexec()]}/mod_mime.so
LoadModule cgid_module @{[PrivateHttpd::libexec()]}/mod_cgid.so
TypesConfig /etc/mime.types
ScriptSock $dir/cgid.sock
Listen 127.0.0.1:$eport
<Directory $dir/cgi>
    Require all granted
</Directory>
<VirtualHost 127.0.0.1:$cport>
    ScriptAlias /hg/ $dir/cgi/
</VirtualHost>
<VirtualHost 127.0.0.1:$eport>
    Alias /hg/ $dir/cgi/
    <Location /hg/>
        Options +ExecCGI
        SetHandler cgiplus-script
        CGIplusEngine $engine
        CGIplusMaxWorkers 1
    </Location>
    <Location /status>
        SetHandler cgiplus-status
    </Location>
</VirtualHost>
CONF
write_file("$dir/httpd.conf", private_conf($dir, $cport, [], $extra), 0644);
ok t_cmp($edits == 1 && private_start("$dir/httpd.conf", $cport) ? 1 : 0, 1,
         "hgweb.cgi with its repository's path set, and httpd with mod_cgid and the Python engine");

same_pages(\@pages, sub {
    my ($side, $page) = @_;
    my $port = $side eq 'ref' ? $cport : $eport;
    my ($code, $h, $body) = curl("http://127.0.0.1:$port/hg/hgweb.cgi/$page");
    $body =~ s/127\.0\.0\.1:$port/127.0.0.1:PORT/g;
    return ($code, $h->{'content-type'} // '', $body);
});

# hg over HTTP through the engine: clone (GET), push (a POST body).
my $url = "http://127.0.0.1:$eport/hg/hgweb.cgi";
my $clone = `hg clone -q '$url' '$dir/clone' 2>&1; hg -R '$dir/clone' log --template '{desc|firstline}\\n' 2>&1`;
ok t_cmp($clone, qr/\AAdded tag v1 for changeset [0-9a-f]{12}\nsecond commit, caf\xc3\xa9\nfirst commit\n\z/,
         'hg clone through the engine gets the three changesets');
write_file("$dir/clone/README", "first line\nsecond line \xc3\xa9\nthird line\n", 0644);
hg('-R', "$dir/clone", 'commit', '-d', '2020-03-04 12:00 +0000', '-m', 'third, pushed over HTTP');
my $push = `hg -R '$dir/clone' push '$url' 2>&1`;
ok t_cmp($push, qr/added 1 changesets with 1 changes to 1 files/, 'hg push through the engine: the server takes the bundle');
my $log = `hg -R '$dir/repo' log -l 1 --template '{desc}' 2>/dev/null`;
ok t_cmp($log, 'third, pushed over HTTP', 'the repository has the pushed changeset');
my (undef, undef, $page) = curl("$url/log");
ok t_cmp($page, qr/third, pushed over HTTP/, "and the engine's next page shows it");

my $pool = pool_of("http://127.0.0.1:$eport/status", $engine);
ok t_cmp($pool ? "spawns $pool->{counters}{spawns}" : 'no pool', 'spawns 1',
         'one engine process served every page, the clone and the push');
private_stop("$dir/httpd.pid");
