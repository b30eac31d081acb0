# A real C CGI program through the drop-in: Debian's cgit, unmodified, in
# two virtual hosts of one private httpd serving it at the same path, one
# with mod_cgid, one with CGIplusCompat (plain CGI through the runner): the
# same status, type and body (cgit's footer clock aside) for its pages, and
# git clones the repository through the drop-in (cgit's dumb HTTP).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_start private_stop fresh_dir);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(git_fixture same_pages pool_of cgid_pair_conf);

my $cgit = '/usr/lib/cgit/cgit.cgi';
my @pages = ('', 'repo.git/', 'repo.git/log/', 'repo.git/tree/', 'repo.git/tree/src',
             'repo.git/tree/README', 'repo.git/plain/README', 'repo.git/commit/',
             'repo.git/commit/?id=HEAD~1', 'repo.git/diff/', 'repo.git/patch/', 'repo.git/refs/',
             'repo.git/tag/?h=v1', 'repo.git/atom/', 'repo.git/log/?qt=grep&q=second',
             'repo.git/snapshot/repo-master.tar.gz', 'nosuch/', 'repo.git/tree/nosuch');
plan tests => 3 * @pages + 3, need { 'needs cgit (Debian package cgit)' => -x $cgit };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/cgit";
my ($cport, $pport) = free_ports(2);
fresh_dir($dir);
mkdir "$dir/repos";

git_fixture($dir, "$dir/repos/repo.git");
system('git', '-C', "$dir/repos/repo.git", 'update-server-info') == 0 or die "update-server-info\n";
write_file("$dir/cgitrc", "cache-size=0\nvirtual-root=/cgit/\nenable-http-clone=1\n"
           . "snapshots=tar.gz\nscan-path=$dir/repos/\n", 0644);
my ($uid, $gid) = (getpwnam($vars->{user}))[2, 3];
system('chown', '-R', "$uid:$gid", "$dir/repos") if $> == 0; # git's safe.directory

write_file("$dir/httpd.conf", cgid_pair_conf($dir, { ref => $cport, ours => $pport }, mods => ['env'],
                                              grant => ['/usr/lib/cgit'], global => "SetEnv CGIT_CONFIG $dir/cgitrc\n",
                                              compat => ['/cgit/'], vhost => sub { "    ScriptAlias /cgit/ $cgit/\n" }), 0644);
ok t_cmp(private_start("$dir/httpd.conf", $cport), 1, 'httpd with mod_cgid and the drop-in, cgit in both');

same_pages(\@pages, sub {
    my ($side, $page) = @_;
    my $port = $side eq 'ref' ? $cport : $pport;
    my ($code, $h, $body) = curl("http://127.0.0.1:$port/cgit/$page");
    $body =~ s/127\.0\.0\.1:$port/127.0.0.1:PORT/g;
    $body =~ s/ at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}</ at TIME</g; # the footer's clock
    # the index's Idle: the age of the repository made here, in minutes
    # rounded ("0 min." turns "1 min." at 30 s)
    $body =~ s{(<span class='age-mins' title='[^']*'>)\d+ min\.}{$1N min.}g;
    return ($code, $h->{'content-type'} // '', $body);
});

my $log = `git clone -q http://127.0.0.1:$pport/cgit/repo.git '$dir/clone' 2>&1 && git -C '$dir/clone' log --format=%s 2>&1`;
ok t_cmp($log, "second commit, caf\xc3\xa9\nfirst commit\n", 'git clone through the drop-in (cgit over dumb HTTP)');
my $pool = pool_of("http://127.0.0.1:$pport/status", $cgit);
ok t_cmp($pool ? "$pool->{mode} " . ($pool->{counters}{requests} >= @pages ? 'all' : $pool->{counters}{requests}) : 'no pool',
         'cgi all', "the drop-in's requests ran through the runner, as plain CGI");
private_stop("$dir/httpd.pid");
