# Issue 22, part 1: blosxom (Debian's blosxom package, a Perl CGI blog,
# unmodified) through the Perl engine: every URL of a set (the index, a
# category, an entry, dates, RSS, a missing path, the index again) answers
# with the same status, type and body as through mod_cgid, and one engine
# process serves them all. What it needs of the engine: its templates
# come from __DATA__ in its own package (blosxom::DATA, not main's), and
# each run sets its defaults and then requires its configuration file,
# which sets them again (a require that finds the file loaded already
# must still set what the file set).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(write_file curl);
use SideBySide qw(same_pages engine_served_all);

plan skip_all => 'blosxom is not installed (apt-get install blosxom)'
    unless -f '/usr/lib/cgi-bin/blosxom';

my @urls = ('', 'tech', 'tech/perl.html', 'index.rss', '2026/11', '2026/12/01', 'tech/index.rss',
            'nothing/here', 'first.html', 'index.html', '');
plan tests => 3 * @urls + 2;

my $cfg = Apache::Test::config();
my $vars = $cfg->{vars};
my $dir = "$vars->{t_logs}/blosxom";
remove_tree($dir);
make_path("$dir/data/tech", "$dir/state");
my %entry = ('first' => ["First post\n<p>Hello from blosxom &amp; friends.</p>\n", '2026-11-01 10:00'],
             'tech/perl' => ["Second post\n<p>About perl.</p>\n", '2026-11-15 12:00'],
             'tech/third' => ["Third post\n<p>The third body.</p>\n", '2026-12-01 08:30']);
for my $e (sort keys %entry) {
    write_file("$dir/data/$e.txt", $entry{$e}[0], 0644);
    system('touch', '-d', $entry{$e}[1], "$dir/data/$e.txt") == 0 or die "touch\n";
}
# its defaults overridden; Debian's plugins
write_file("$dir/blosxom.conf", <<"CONF", 0644);
\$blog_title = "Test blog";
\$datadir = "$dir/data";
\$url = "http://blog.test/blog";
\$plugin_dir = "/etc/blosxom/plugins";
\$plugin_state_dir = "$dir/state";
\$static_dir = "$dir/static";
1;
CONF
my $uid = getpwnam($vars->{user} // 'nobody') // getpwnam('nobody');
chown $uid, -1, "$dir/state";
chmod 0755, $dir;

sub get {
    my ($vh, $u) = @_;
    my ($code, $h, $body) = curl('http://127.0.0.1:' . $cfg->port($vh) . "/blog/$u");
    return ($code, $h->{'content-type'} // '', $body);
}

same_pages(\@urls, sub {
    my ($side, $page) = @_;
    return get($side eq 'ref' ? 'cgiplus_blosxom_cgid' : 'cgiplus_blosxom_engine', $page);
});
my (undef, undef, $index) = get('cgiplus_blosxom_engine', '');
ok t_cmp($index, qr/<title>Test blog.*Third post.*Second post.*First post/s,
         "the index: the configuration's title, then the three entries, newest first");
engine_served_all($cfg->port('cgiplus_blosxom_engine'), 'blosxom', scalar @urls, 'one engine process served every blosxom request');
