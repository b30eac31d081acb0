# Issue 22, part 1: gitweb (Debian's gitweb package, a large Perl CGI
# script, unmodified) through the Perl engine answers every URL of a set
# with the same status, type and body as through mod_cgid, and one engine
# process serves them all.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(write_file curl);
use SideBySide qw(git_fixture same_pages);

plan skip_all => 'gitweb is not installed (apt-get install gitweb)' unless -f '/usr/share/gitweb/gitweb.cgi';

my @urls = ('', '?a=project_index', '?a=opml', '?p=test.git;a=summary', '?p=test.git;a=log',
            '?p=test.git;a=shortlog', '?p=test.git;a=tree', '?p=test.git;a=tree;f=src',
            '?p=test.git;a=blob;f=README;hb=HEAD', '?p=test.git;a=blob_plain;f=README;hb=HEAD',
            '?p=test.git;a=commit;h=HEAD', '?p=test.git;a=commitdiff;h=HEAD',
            '?p=test.git;a=history;f=README', '?p=test.git;a=rss', '?p=test.git;a=atom',
            '?p=test.git;a=tags', '?p=test.git;a=search;s=second;st=commit',
            '?p=test.git;a=snapshot;h=HEAD;sf=tgz', '?p=no-such.git;a=summary',
            '?p=test.git;a=blob;f=no-such-file');
plan tests => 3 * @urls + 2;

my $cfg = Apache::Test::config();
my $vars = $cfg->{vars};
my $dir = "$vars->{t_logs}/gitweb";
remove_tree($dir);
make_path("$dir/repos");

# The repository, owned by the workers' user (git refuses another user's).
git_fixture($dir, "$dir/repos/test.git");
write_file("$dir/repos/test.git/description", "the test repository\n", 0644);
write_file("$dir/gitweb.conf", <<"CONF", 0644);
\$projectroot = "$dir/repos";
\$git_temp = "/tmp";
\$site_name = "cgiplus gitweb test";
\$feature{'snapshot'}{'default'} = ['tgz'];
CONF
my $uid = getpwnam($vars->{user} // 'nobody') // getpwnam('nobody');
system('chown', '-R', $uid, "$dir/repos") == 0 or die "chown\n";
chmod 0755, $dir;

# The same Host header (no port) for both: gitweb's absolute URLs come
# from it.
sub get {
    my ($vh, $u) = @_;
    my ($code, $h, $body) = curl('-H', 'Host: gitweb.test', "http://127.0.0.1:" . $cfg->port($vh) . "/gitweb/$u");
    return ($code, $h->{'content-type'} // '', $body);
}

my ($c0, undef, $b0) = get('cgiplus_gitweb_engine', 'env.pl');
my ($pid) = $b0 =~ /^pid=(\d+)$/m;
same_pages([map { "gitweb.cgi$_" } @urls], sub {
    my ($side, $page) = @_;
    return get($side eq 'ref' ? 'cgiplus_gitweb_cgid' : 'cgiplus_gitweb_engine', $page);
});
my (undef, undef, $b1) = get('cgiplus_gitweb_engine', 'env.pl');
ok t_cmp($pid ? 1 : 0, 1, 'the engine pool answers');
ok t_cmp(($b1 =~ /^pid=(\d+)$/m)[0], $pid, 'one engine process served every gitweb request');
