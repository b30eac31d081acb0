# git's smart HTTP server, git-http-backend (Debian's git, unmodified), set
# up as git-http-backend(1)'s Apache example (ScriptAlias, GIT_PROJECT_ROOT,
# GIT_HTTP_EXPORT_ALL, anonymous reads, Basic auth for receive-pack) in two
# virtual hosts of one private httpd, one with mod_cgid, one with
# CGIplusCompat: the same answers to its requests (plain, gzip and chunked
# upload-pack bodies), then git clones and pushes through both: a small
# push (a body with a length), a large one (chunked), one without
# credentials (refused: receive-pack needs REMOTE_USER). Both repositories
# end with the same refs, the same reflog (git-http-backend names the
# pusher from REMOTE_USER and REMOTE_ADDR) and pass git fsck.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Digest::SHA qw(sha1_base64);
use IO::Compress::Gzip qw(gzip $GzipError);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_start private_stop fresh_dir);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(git_fixture same_pages pool_of cgid_pair_conf);

my $ghb = '/usr/lib/git-core/git-http-backend';
# (page, curl arguments): pages under /git/.
my @requests = (
    ['repo.git/info/refs?service=git-upload-pack'],
    ['repo.git/info/refs?service=git-receive-pack'],                    # 401
    ['repo.git/info/refs?service=git-receive-pack (alice)', '-u', 'alice:secret'],
    ['repo.git/info/refs?service=git-receive-pack (bob)', '-u', 'bob:secret'], # not a committer
    ['repo.git/info/refs'], ['repo.git/HEAD'], ['repo.git/objects/info/packs'],
    ['nosuch.git/info/refs?service=git-upload-pack'],
    ['repo.git/git-upload-pack (plain)'], ['repo.git/git-upload-pack (gzip)'],
    ['repo.git/git-upload-pack (chunked)'], ['repo.git/git-upload-pack (chunked gzip)'],
);
plan tests => 3 * @requests + 13, need { 'needs git-http-backend (Debian package git)' => -x $ghb };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/git-http";
my ($cport, $pport) = free_ports(2);
my %port = (ref => $cport, ours => $pport);
fresh_dir($dir);
my %env = (HOME => $dir, GIT_CONFIG_NOSYSTEM => 1, GIT_TERMINAL_PROMPT => 0,
           GIT_AUTHOR_NAME => 'Ann Author', GIT_AUTHOR_EMAIL => 'ann@example.org',
           GIT_COMMITTER_NAME => 'Ann Author', GIT_COMMITTER_EMAIL => 'ann@example.org',
           GIT_AUTHOR_DATE => '2021-01-01T00:00:00Z', GIT_COMMITTER_DATE => '2021-01-01T00:00:00Z');
local @ENV{keys %env} = values %env;
# git as root on the workers' repositories (it refuses another user's).
sub git { my $out = `git -c safe.directory=* @_ 2>&1`; return $? == 0 ? $out : "failed: $out" }

git_fixture($dir, "$dir/ref/repo.git");
mkdir "$dir/ours";
system('cp', '-a', "$dir/ref/repo.git", "$dir/ours/repo.git") == 0 or die "cp\n";
for my $side (qw(ref ours)) {
    # One thread (the same pack bytes each time), no background gc (the
    # packs stay as they are), reflogs (who pushed).
    git("-C $dir/$side/repo.git config $_") for 'pack.threads 1', 'gc.auto 0', 'core.logAllRefUpdates true';
}
my ($uid, $gid) = (getpwnam($vars->{user}))[2, 3];
system('chown', '-R', "$uid:$gid", "$dir/ref", "$dir/ours") if $> == 0;
write_file("$dir/htpasswd", join('', map { "$_:{SHA}" . sha1_base64('secret') . "=\n" } qw(alice bob)), 0644);
write_file("$dir/groups", "committers: alice\n", 0644);

# git-http-backend(1): "anonymous read access but authenticated write access"
sub vhost {
    my ($side) = @_;
    return <<"CONF";
    SetEnv GIT_PROJECT_ROOT $dir/$side
    SetEnv GIT_HTTP_EXPORT_ALL
    ScriptAlias /git/ $ghb/
    RewriteEngine On
    RewriteCond %{QUERY_STRING} service=git-receive-pack [OR]
    RewriteCond %{REQUEST_URI} /git-receive-pack\$
    RewriteRule ^/git/ - [E=AUTHREQUIRED:yes]
    <LocationMatch "^/git/">
        Order Deny,Allow
        Deny from env=AUTHREQUIRED
        AuthType Basic
        AuthName "Git Access"
        AuthUserFile $dir/htpasswd
        AuthGroupFile $dir/groups
        Require group committers
        Satisfy Any
    </LocationMatch>
CONF
}
my @mods = qw(env rewrite access_compat auth_basic authn_core authn_file authz_user authz_groupfile);
write_file("$dir/httpd.conf", cgid_pair_conf($dir, \%port, mods => \@mods, grant => ['/usr/lib/git-core'],
                                              global => "LogFormat \"%p %u %m %U %>s %{Transfer-Encoding}i\" git\n"
                                                        . "CustomLog $dir/access_log git\n",
                                              compat => ['/git/'], vhost => \&vhost), 0644);
ok t_cmp(private_start("$dir/httpd.conf", $cport), 1, 'httpd with mod_cgid and the drop-in, git-http-backend in both');

# An upload-pack request for master (protocol v0): the whole pack.
my $want = git("-C $dir/ref/repo.git rev-parse master");
chomp $want;
my $pkt = sub { sprintf('%04x', 4 + length $_[0]) . $_[0] };
my $upload = $pkt->("want $want multi_ack_detailed side-band-64k ofs-delta no-progress\n") . '0000'
             . $pkt->("done\n");
gzip(\$upload => \my $gzipped) or die $GzipError;
write_file("$dir/upload.req", $upload, 0644);
write_file("$dir/upload.req.gz", $gzipped, 0644);
my %body = (plain => [], gzip => ['-H', 'Content-Encoding: gzip'],
            chunked => ['-H', 'Transfer-Encoding: chunked'],
            'chunked gzip' => ['-H', 'Transfer-Encoding: chunked', '-H', 'Content-Encoding: gzip']);
# An upload-pack answer with its side-band packets joined: how upload-pack
# cuts the pack into packets depends on its reads from pack-objects.
sub demux {
    my ($in) = @_;
    my ($out, $pack) = ('', '');
    while ($in =~ /\G([0-9a-f]{4})/gc) {
        my $n = hex $1;
        my $data = $n > 4 ? substr($in, pos($in), $n - 4) : '';
        pos($in) += length $data;
        if ($data =~ s/^\x01//) {
            $pack .= $data;
        } else {
            $out .= ($n ? $data : "FLUSH\n");
        }
    }
    return $out . substr($in, pos($in) // 0) . "PACK " . length($pack) . ":$pack";
}
my %args = map { $_->[0] => [@$_[1 .. $#$_]] } @requests;
same_pages([map { $_->[0] } @requests], sub {
    my ($side, $page) = @_;
    my ($path, $kind) = $page =~ /^(\S+)(?: \((.*)\))?$/;
    my @a = @{ $args{$page} };
    if ($path =~ m{/git-upload-pack$}) {
        @a = ('-H', 'Content-Type: application/x-git-upload-pack-request', @{ $body{$kind} },
              '--data-binary', '@' . "$dir/upload.req" . ($kind =~ /gzip/ ? '.gz' : ''));
    }
    my ($code, $h, $body) = curl(@a, "http://127.0.0.1:$port{$side}/git/$path");
    $body =~ s/127\.0\.0\.1:$port{$side}/127.0.0.1:PORT/g;
    $body =~ s/Port $port{$side}/Port PORT/g;
    $body = demux($body) if $path =~ m{/git-upload-pack$};
    return ($code, $h->{'content-type'} // '', $body);
});

# Real clients: a clone, and the same pushes to both sides.
my $work = "$dir/clone";
my $url = sub { my ($side, $who) = @_; "http://" . ($who ? "$who\@" : '') . "127.0.0.1:$port{$side}/git/repo.git" };
ok t_cmp(git("clone -q " . $url->('ours') . " $work") . git("-C $work log --format=%s"),
         "second commit, caf\xc3\xa9\nfirst commit\n", 'git clone through the drop-in');
write_file("$work/small.txt", "a small change\n", 0644);
git("-C $work add small.txt");
git("-C $work commit -q -m small");
my $refused = git("-C $work push -q " . $url->('ours') . ' master');
ok t_cmp($refused =~ /^failed: .*(?:could not read Username|Authentication failed)/s ? 'refused' : $refused, 'refused',
         'a push without credentials is refused (401)');
ok t_cmp(git("-C $dir/ours/repo.git rev-parse master"), "$want\n", 'and changed nothing');
# a small pack: one POST with a length; a large one: chunked (beyond
# git's http.postBuffer)
my @pushed;
for my $step (qw(small large)) {
    if ($step eq 'large') {
        system("openssl rand -out '$work/large.bin' 20000000") == 0 or die "openssl rand\n";
        git("-C $work add large.bin");
        git("-C $work commit -q -m large");
    }
    push @pushed, map { git("-C $work push -q " . $url->($_, 'alice:secret') . ' master') } qw(ref ours);
}
ok t_cmp(join('|', @pushed), '|||', 'the small and the large push succeed on both sides (alice)');
chomp(my $head = git("-C $work rev-parse HEAD"));
my %refs = map { $_ => git("-C $dir/$_/repo.git for-each-ref --format='%(objectname) %(refname)'") } qw(ref ours);
ok t_cmp($refs{ours} =~ m{^\Q$head\E refs/heads/master$}m ? 'at HEAD' : $refs{ours}, 'at HEAD',
         "the drop-in's master is the pushed commit");
ok t_cmp($refs{ours}, $refs{ref}, "the same refs as mod_cgid's repository");
ok t_cmp(git("-C $dir/ours/repo.git fsck --strict --no-progress"), '', 'git fsck --strict: no error');
# git-http-backend names the pusher alice <alice@http.REMOTE_ADDR>
my %reflog = map { $_ => git("-C $dir/$_/repo.git log -g --format='%gn <%ge> %gs' master") } qw(ref ours);
ok t_cmp($reflog{ours}, "alice <alice\@http.127.0.0.1> push\n" x 2, 'the reflog names alice (REMOTE_USER) twice');
ok t_cmp($reflog{ours}, $reflog{ref}, "the same reflog as mod_cgid's");

open my $log, '<', "$dir/access_log" or die "access_log: $!";
my @chunked = grep { m{^$pport alice POST /git/repo.git/git-receive-pack 200 chunked$} } <$log>;
ok t_cmp(scalar @chunked, 1, 'the large push reached the drop-in chunked');
ok t_cmp(git("clone -q " . $url->('ours') . " $dir/again") . git("-C $dir/again rev-parse HEAD"), "$head\n",
         'a fresh clone through the drop-in has it');
my $pool = pool_of("http://127.0.0.1:$pport/status", $ghb);
ok t_cmp($pool ? "$pool->{mode} " . ($pool->{counters}{requests} >= @requests ? 'all' : $pool->{counters}{requests}) : 'no pool',
         'cgi all', "the drop-in's requests ran through the runner, as plain CGI");
private_stop("$dir/httpd.pid");
