# Debian's fossil, unmodified, served as its documentation's CGI script
# (a file "#!/usr/bin/fossil" + "repository: PATH") in two virtual hosts of
# one private httpd, one with mod_cgid, one with CGIplusCompat (plain CGI
# through the runner), each on its own copy of a repository made here: the
# same walk on both with a cookie jar each (the timeline, its RSS, a
# directory, a file view, raw downloads, a tarball, PATH_INFO-heavy
# pages: /doc/BRANCH/PATH, /info/HASH, /vdiff, a wrong password's POST,
# the right one's (its log-in cookie), pages as that user, the admin's
# user list, log-out, pages that are not there, a HEAD): the same status,
# headers (but the date, Server, the framing) and body; fossil records the
# log-in in each copy the same way. After a reply fossil leaves a detached
# "backoffice" process waiting for its turn, and a new one only if
# kill(pid, 0) says the one queued is gone: the drop-in's runs share their
# pool's Landlock domain, so that probe works as under mod_cgid and both
# sides keep at most two (docs/cgi-compat.md).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_start private_stop fresh_dir);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(walk same_answer pool_of cgid_pair_conf);

my $fossil = '/usr/bin/fossil';
my $S = '/cgi-bin/repo.cgi';
my $H;    # the second check-in's hash (below)
# Each step: (what the side answered last, the side) -> [METHOD, path, curl arguments].
my @steps = (
    sub { ['GET', "$S/timeline"] },
    sub { ['GET', "$S/timeline?n=1&y=ci&v=1"] },
    sub { ['GET', "$S/timeline.rss"] },
    sub { ['GET', "$S/dir?ci=tip"] },
    sub { ['GET', "$S/dir?name=src&ci=tip"] },
    sub { ['GET', "$S/file?name=README.md&ci=tip"] },
    sub { ['GET', "$S/file/src/main.c?ci=trunk&ln"] },
    sub { ['GET', "$S/raw/README.md?ci=tip"] },
    sub { ['GET', "$S/raw/$H"] },
    sub { ['GET', "$S/doc/trunk/doc/notes.md"] },
    sub { ['GET', "$S/doc/v1/doc/notes%20%C3%A9.md"] },
    sub { ['GET', "$S/info/$H"] },
    sub { ['GET', "$S/vdiff?from=v1&to=trunk"] },
    sub { ['GET', "$S/vdiff?from=v1&to=tip&diff=2"] },
    sub { ['GET', "$S/vdiff?from=nosuch&to=trunk"] },          # fossil's own 500
    sub { ['GET', "$S/tarball/trunk/repo.tar.gz"] },
    sub { ['GET', "$S/brlist"] },
    sub { ['GET', "$S/taglist"] },
    sub { ['GET', "$S/nosuchpage/at/all"] },
    sub { ['GET', "$S/doc/trunk/nosuch.md"] },
    sub { ['HEAD', "$S/timeline"] },
    sub { ['GET', "$S/login"] },
    sub { ['POST', "$S/login", '--data', 'u=ann&p=wrong&in=Login'] },
    sub { ['POST', "$S/login", '--data', 'u=ann&p=secret&in=Login&g=timeline'] },
    sub { ['GET', "$S/timeline"] },
    sub { ['GET', "$S/setup_ulist"] },
    sub { ['GET', "$S/logout"] },
    sub { ['POST', "$S/logout", '--data', 'out=Logout'] },
    sub { ['GET', "$S/setup_ulist"] },
);
plan tests => 5 * @steps + 6, need { 'needs fossil (Debian package fossil)' => -x $fossil };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/fossil";
my ($cport, $pport) = free_ports(2);
my %port = (ref => $cport, ours => $pport);
# fossil's processes still running from this test's repositories (its
# detached backoffice processes wait some 60 s): a side => their pids.
sub fossils {
    my %p = (ref => [], ours => []);
    opendir my $d, '/proc' or return \%p;
    for my $pid (grep { /^\d+$/ } readdir $d) {
        open my $fh, '<', "/proc/$pid/cmdline" or next;
        my $cmd = do { local $/; <$fh> } // '';
        push @{ $p{$1} }, $pid if $cmd =~ m{^\Q$fossil\E\0\Q$dir\E/(ref|ours)/repo\.cgi\0\z};
    }
    return \%p;
}
sub stop_fossils { my $p = fossils(); kill 'TERM', map { @$_ } values %$p }
stop_fossils();    # an earlier run's, before their files go
END { stop_fossils() }
fresh_dir($dir);

# ---- the repository: three check-ins at fixed dates (README, a C file,
# markdown documents, one with a non-ASCII name), a tag, a user "ann"
# with a known password
{
    local @ENV{qw(HOME USER FOSSIL_HOME)} = ($dir, 'ann', $dir);
    my $f = sub {
        my $out = `cd '$dir/work' && $fossil @_ 2>&1`;
        die "fossil @_: $out" if $?;
        return $out;
    };
    system("$fossil init --date-override '2020-01-01 00:00:00' -A ann '$dir/repo.fossil' >/dev/null") == 0
        or die "fossil init\n";
    mkdir "$dir/work";
    mkdir "$dir/work/$_" for qw(src doc);
    $f->("open -f '$dir/repo.fossil'");
    write_file("$dir/work/README.md", "first line\n", 0644);
    write_file("$dir/work/src/main.c", "int main(void) { return 0; }\n", 0644);
    write_file("$dir/work/doc/notes.md", "# Notes\n\nSome *markdown* text, [a link](../../README.md).\n", 0644);
    write_file("$dir/work/doc/notes \xc3\xa9.md", "# Accented\n\ncaf\xc3\xa9\n", 0644);
    $f->('add .');
    $f->("commit -m 'first commit' --date-override 2020-01-02T10:00:00 --no-warnings");
    $f->("tag add v1 trunk --date-override 2020-01-02T10:00:01");
    write_file("$dir/work/README.md", "first line\nsecond line \xc3\xa9\n", 0644);
    $f->("commit -m 'second commit, caf\xc3\xa9' --date-override 2020-02-03T11:00:00 --no-warnings");
    $f->('user password ann secret');
    ($H) = $f->('info tip') =~ /^hash:\s+(\w+)/m;
    $f->('close');
}
# A copy a side (the log-in writes to it), owned by httpd's user: fossil
# writes its journal beside the repository.
my ($uid, $gid) = (getpwnam($vars->{user}))[2, 3];
for my $side (qw(ref ours)) {
    mkdir "$dir/$side";
    system('cp', "$dir/repo.fossil", "$dir/$side/repo.fossil") == 0 or die "cp\n";
    write_file("$dir/$side/repo.cgi", "#!$fossil\nrepository: $dir/$side/repo.fossil\n", 0755);
    system('chown', '-R', "$uid:$gid", "$dir/$side") if $> == 0;
}

write_file("$dir/httpd.conf", cgid_pair_conf($dir, \%port, grant => [$dir], compat => ['/cgi-bin/'],
                                              vhost => sub { "    ScriptAlias /cgi-bin/ $dir/$_[0]/\n" }), 0644);
ok t_cmp(private_start("$dir/httpd.conf", $cport), 1, 'httpd with mod_cgid and the drop-in, a fossil CGI script in both');

# What differs between two servers or two requests: the port; each side's
# own repository ($dir/ref, $dir/ours); what fossil draws at random each
# page (the Content-Security-Policy's nonce, the anonymous log-in's captcha
# seed and picture, the password it suggests, the log-in cookie's value);
# the clock (the page's generation time, ann's last log-in as a Julian day
# in the user list's sort key and its age beside it: "current" under a
# second, then "N seconds", which a slow side reaches alone; the RSS
# channel's pubDate, now to the second; the branch list's age of the last
# check-in, "6.84 years", whose hundredths tick every 3.65 days).
my $jd = int(time / 86400 + 2440587.5);
sub norm {
    my ($b, $port) = @_;
    $b =~ s/127\.0\.0\.1:$port/127.0.0.1:PORT/g;
    $b =~ s{\Q$dir\E/(?:ref|ours)/}{$dir/SIDE/}g;
    $b =~ s/nonce-[0-9a-f]+/nonce-NONCE/g;
    $b =~ s/\bnonce=(['"])[0-9a-f]+['"]/nonce=$1NONCE$1/g;
    $b =~ s{captcha-audio/\d+}{captcha-audio/SEED}g;
    $b =~ s{(name="cs" value=")\d+}{$1SEED}g;
    $b =~ s{(<pre class="captcha">).*?(</pre>)}{$1CAPTCHA$2}sg;
    $b =~ s/Suggestion: \w+/Suggestion: PASSWORD/g;
    $b =~ s/generated in about\n\d+\.\d+s by/generated in about\nTIMEs by/g;
    $b =~ s/data-sortkey='(?:$jd|@{[$jd + 1]})\.\d+'/data-sortkey='NOW'/g;
    $b =~ s/(data-sortkey='NOW' style='white-space:nowrap'>)(?:current|\d+ seconds|\d+\.\d (?:minutes|hours))\b/${1}AGE/g;
    $b =~ s{(<pubDate>)[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [+-]\d{4}(</pubDate>\n\s*<generator>)}{$1NOW$2}g;
    $b =~ s{(<td data-sortkey="[0-9a-f]{16}">)\d+\.\d\d years(</td>)}{$1AGE$2}g;
    return $b;
}
sub heads {
    my ($h) = @_;
    my @k = grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive|location)$/ } keys %$h;
    return join "\n", map { my $v = norm($h->{$_}, 0);
                            $v =~ s/^(fossil-\w+=)[0-9A-F]+/$1COOKIE/ if $_ eq 'set-cookie';
                            "$_: $v" } sort @k;
}

my ($n, %user) = (0);
walk(\@steps, \%port, $dir, \&norm, sub {
    my ($what, $r) = @_;
    $n++;
    # fossil records a log-in in the repository's user table
    %user = map { $_ => `$fossil sql -R '$dir/$_/repo.fossil' "SELECT login, length(cookie), cexpire > julianday('now') FROM user" 2>&1` } qw(ref ours)
        if $what eq "POST $S/login" && $r->{ref}{code} == 302;
    write_file("$dir/$_/body-$n", $r->{$_}{body}, 0644) for keys %$r;    # for a failing run's reader
    same_answer($what, 'mod_cgiplus', $r->{ours}, $r->{ref}, 'mod_cgid');
    ok t_cmp(heads($r->{ours}{h}), heads($r->{ref}{h}), "$what: the same other headers");
});

ok t_cmp($user{ours} // 'no log-in', qr/^'ann',\d+,1\n/, "the drop-in's fossil recorded ann's log-in (a cookie, not expired)");
ok t_cmp($user{ours}, $user{ref}, 'as under mod_cgid');
# The backoffice processes the walk left: fossil keeps at most two (one
# working, one on deck), checking the earlier one with kill(pid, 0). The
# drop-in's runs of repo.cgi share their pool's Landlock domain, so that
# check works there too (runner_domain.c), signals scoped or not.
my $left = fossils();
t_debug("backoffice processes left: mod_cgid " . @{ $left->{ref} } . ', the drop-in ' . @{ $left->{ours} });
ok t_cmp(scalar @{ $left->{ref} } <= 2 ? 'at most 2' : scalar @{ $left->{ref} }, 'at most 2',
         "mod_cgid's fossil: at most two backoffice processes left");
my $ours = @{ $left->{ours} };
ok t_cmp($ours >= 1 && $ours <= 2 ? 'one or two' : $ours, 'one or two',
         "the drop-in's fossil: one or two, the last request's still waiting (its kill(pid, 0) reaches its earlier runs)");
my $pool = pool_of("http://127.0.0.1:$pport/status", "$dir/ours/repo.cgi");
ok t_cmp($pool ? "$pool->{mode} " . ($pool->{counters}{requests} >= @steps ? 'all' : $pool->{counters}{requests}) : 'no pool',
         'cgi all', "the drop-in's requests ran through the runner, as plain CGI");
private_stop("$dir/httpd.pid");
