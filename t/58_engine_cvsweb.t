# Issue 22, part 1: cvsweb (Debian's cvsweb package, an old-style Perl CGI
# script written for CGI and mod_perl alike: file-scoped globals it resets
# by hand, `#!/usr/bin/perl -T`, rlog, rcsdiff and co run per request),
# unmodified, through the Perl engine: every URL of a set answers with the
# same status, type and body as through mod_cgid, the first pages again at
# the end (what one request set must not reach the next), and one engine
# process serves them all.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(write_file curl);
use SideBySide qw(same_pages engine_served_all);

plan skip_all => 'cvsweb is not installed (apt-get install cvsweb cvs rcs)'
    unless -f '/usr/lib/cgi-bin/cvsweb' && -x '/usr/bin/cvs' && -x '/usr/bin/rlog';

my @urls = ('', 'proj/', 'proj/src/', 'proj/README', 'proj/README?rev=1.3',
            'proj/README?rev=1.2;content-type=text%2Fplain', 'proj/README?annotate=1.3',
            'proj/README.diff?r1=1.1;r2=1.3', 'proj/README.diff?r1=1.1;r2=1.3;f=u',
            'proj/README.diff?r1=1.2;r2=1.3;f=h', 'proj/src/main.c',
            'proj/src/main.c?rev=1.2;content-type=text%2Fx-cvsweb-markup',
            'proj/?only_with_tag=rel-1', 'proj/README?only_with_tag=rel-1', 'proj/?sortby=date',
            'proj/?sortby=log', 'proj/no-such-file', 'no-such-dir/', 'proj/README?rev=9.9',
            'proj/', 'proj/README', '');
plan tests => 3 * @urls + 2;

my $cfg = Apache::Test::config();
my $vars = $cfg->{vars};
my $dir = "$vars->{t_logs}/cvsweb";
remove_tree($dir);
make_path("$dir/cgi", "$dir/work");

# A repository of one module, three revisions of README, a tag.
my $root = "$dir/repo";
sub cvs {
    my ($in, @args) = @_;
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        chdir $in or die "$in: $!";
        $ENV{CVSROOT} = $root;
        $ENV{TZ} = 'UTC';
        open STDOUT, '>', '/dev/null';
        exec 'cvs', '-Q', @args or die "cvs: $!";
    }
    waitpid $pid, 0;
    die "cvs @args: $?\n" if $?;
}
cvs($dir, 'init');
make_path("$dir/import/src");
write_file("$dir/import/README", "hello\n", 0644);
write_file("$dir/import/src/main.c", "int main(void) { return 0; }\n", 0644);
cvs("$dir/import", qw(import -m), 'initial import', qw(proj vendor start));
cvs("$dir/work", qw(checkout proj));
my $wc = "$dir/work/proj";
write_file("$wc/README", "hello\nsecond line\n", 0644);
cvs($wc, qw(commit -m), 'a second line', 'README');
write_file("$wc/src/main.c", "int main(void) { return 1; }\n", 0644);
cvs($wc, qw(commit -m), 'return 1', 'src/main.c');
cvs($wc, qw(tag rel-1 .));
write_file("$wc/README", "hello\nsecond line\nthird & <line>\n", 0644);
cvs($wc, qw(commit -m), 'third line, with & and <>', 'README');

# Debian's cvsweb.conf with the repository's path; the script itself is a
# link, so that cvsweb finds the configuration beside it (its first place).
open my $dc, '<', '/etc/cvsweb/cvsweb.conf' or die "/etc/cvsweb/cvsweb.conf: $!";
my $conf = do { local $/; <$dc> };
close $dc;
$conf =~ s{'/var/lib/cvs'}{'$root'} or die "no repository line in cvsweb.conf\n";
write_file("$dir/cgi/cvsweb.conf", $conf, 0644);
symlink '/usr/lib/cgi-bin/cvsweb', "$dir/cgi/cvsweb.cgi" or die "symlink: $!";
chmod 0755, $dir;

# cvsweb writes a form's hidden fields in its hash's order, which perl
# makes differ from process to process: compared sorted; and the age of a
# revision, which may tick between the two requests.
sub get {
    my ($vh, $u) = @_;
    my ($code, $h, $body) = curl('-H', 'Host: cvsweb.test',
                                 'http://127.0.0.1:' . $cfg->port($vh) . "/cvsweb/cvsweb.cgi/$u");
    $body =~ s{((?:<input type="hidden"[^\n]*\n)+)}{join '', sort split /^/m, $1}ge;
    # ages ("9 seconds ago") move on between the two requests (and the
    # first seconds are "very little time ago"; from 2 minutes on, a log
    # entry's age has a rest, "2 minutes, 1 second", but none on the whole
    # minute: one age, rest or not)
    my $unit = qr/\d+ (?:second|minute|hour|day|week|month|year)s?/;
    $body =~ s/\b(?:$unit(?:, $unit)?|very little time)\b/N AGE/g;
    return ($code, $h->{'content-type'} // '', $body);
}

same_pages(\@urls, sub {
    my ($side, $page) = @_;
    return get($side eq 'ref' ? 'cgiplus_cvsweb_cgid' : 'cgiplus_cvsweb_engine', $page);
});
my (undef, undef, $log) = get('cgiplus_cvsweb_engine', 'proj/README');
ok t_cmp($log, qr/third line, with &amp; and &lt;&gt;.*a second line.*initial import/s,
         'the log page lists the three revisions, newest first');
engine_served_all($cfg->port('cgiplus_cvsweb_engine'), 'cvsweb', scalar @urls, 'one engine process served every cvsweb request');
