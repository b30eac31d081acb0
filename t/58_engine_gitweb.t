# Issue 22, part 1: gitweb (Debian's gitweb package, a large Perl CGI
# script, unmodified) through the Perl engine answers every URL of a set
# with the same status, type and body as through mod_cgid, and one engine
# process serves them all.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Digest::MD5 qw(md5_hex);
use File::Path qw(make_path remove_tree);
use lib 't/htdocs/apps';
use AppTest qw(write_file curl);

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
make_path("$dir/repos", "$dir/work/src");

# A repository with fixed dates (so relative ages do not move), owned by
# the workers' user (git refuses another user's repository).
my %env = (GIT_AUTHOR_NAME => 'Ann Author', GIT_AUTHOR_EMAIL => 'ann@example.org',
           GIT_COMMITTER_NAME => 'Ann Author', GIT_COMMITTER_EMAIL => 'ann@example.org',
           HOME => $dir, GIT_CONFIG_NOSYSTEM => 1);
sub git {
    my ($date, @args) = @_;
    local @ENV{keys %env} = values %env;
    local $ENV{GIT_AUTHOR_DATE} = $date;
    local $ENV{GIT_COMMITTER_DATE} = $date;
    system('git', '-C', "$dir/work", @args) == 0 or die "git @args failed\n";
}
git('2020-01-01T00:00:00Z', 'init', '-q', '-b', 'master');
write_file("$dir/work/README", "first line\n", 0644);
write_file("$dir/work/src/main.c", "int main(void) { return 0; }\n", 0644);
git('2020-01-02T10:00:00Z', 'add', '.');
git('2020-01-02T10:00:00Z', 'commit', '-q', '-m', 'first commit');
write_file("$dir/work/README", "first line\nsecond line \xc3\xa9\n", 0644);
git('2020-02-03T11:00:00Z', 'commit', '-q', '-a', '-m', 'second commit, caf\xc3\xa9');
git('2020-02-03T11:00:00Z', 'tag', '-a', '-m', 'version one', 'v1');
system('git', 'clone', '-q', '--bare', "$dir/work", "$dir/repos/test.git") == 0 or die "clone\n";
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
for my $u (@urls) {
    my @e = get('cgiplus_gitweb_engine', "gitweb.cgi$u");
    my @c = get('cgiplus_gitweb_cgid', "gitweb.cgi$u");
    ok t_cmp($e[0], $c[0], "gitweb.cgi$u: the status of mod_cgid ($c[0])");
    ok t_cmp($e[1], $c[1], "gitweb.cgi$u: the content type");
    # bodies compared whole (by digest for the snapshot, a tar.gz)
    ok t_cmp(length($e[2]) > 2000 ? md5_hex($e[2]) . ' ' . length($e[2]) : $e[2],
             length($c[2]) > 2000 ? md5_hex($c[2]) . ' ' . length($c[2]) : $c[2],
             "gitweb.cgi$u: the same body (" . length($c[2]) . " bytes)");
}
my (undef, undef, $b1) = get('cgiplus_gitweb_engine', 'env.pl');
ok t_cmp($pid ? 1 : 0, 1, 'the engine pool answers');
ok t_cmp(($b1 =~ /^pid=(\d+)$/m)[0], $pid, 'one engine process served every gitweb request');
