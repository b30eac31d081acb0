# Issue 20, hole 6: where DefaultRuntimeDir is writable by someone other
# than root, that user can plant symlinks at the names root writes there:
# the runner's configuration (written by the httpd parent at every
# restart, then renamed into place) and the runner's pidfile (written at
# its start). Root must never follow them: files are made under unique
# names with O_EXCL and renamed over the final name, which replaces a link
# instead of following it. A private httpd; its runtime directory is handed
# after it started to a user who is neither root nor httpd's User (nor in
# its group): httpd refuses a directory httpd's User can write (hole 5,
# t/57_runner_peer.t), so such an owner is what is left to plant links.
# As that user, symlinks to a root-owned file are planted at the
# configuration's old temporary name and the pidfile's temporary names of
# the next 2000 pids; then a graceful restart (which the directory passes)
# and a runner restart. Before the fix the graceful restart wrote the runner's
# configuration into the target.
use strict;
use lib "t/lib";
use FreePort qw(free_port);
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use POSIX ();
use Time::HiRes qw(sleep);
use lib 't/htdocs/pool/lib', 't/lib';
use PrivHttpd qw(httpd_start httpd_graceful);
use RawHTTP qw(raw_request);

plan tests => 10;

my $vars = Apache::Test::config()->{vars};
my $port = free_port();
my $nobody = getpwnam($vars->{user}) // die;
my $ngid = getgrnam($vars->{group}) // die;
my $pool = "$vars->{documentroot}/pool";
my $dir = httpd_start('runtime-symlinks', $port, <<"CONF");
<Directory $pool>
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
Alias /s/app.pl $pool/app.pl
CONF

sub get { raw_request("127.0.0.1:$port", GET => $_[0])->{code} }
sub slurp { open my $fh, '<', $_[0] or return ''; local $/; <$fh> // '' }
sub runner_pid { slurp("$dir/cgiplus-runner.pid") =~ /^(\d+)\n\z/ ? $1 : 0 }

my $rpid = 0;
for (1 .. 50) { last if ($rpid = runner_pid()); sleep 0.1 }
ok t_cmp(get('/s/app.pl'), 200, 'httpd serves a script');

# A root-owned file the attack aims at.
my $target = "$vars->{t_logs}/runtime-symlinks-target";
open my $fh, '>', $target or die "$target: $!";
print $fh "precious\n";
close $fh;
chmod 0644, $target;

# The runtime directory becomes the other user's (mode 0755); as that
# user, links at the names root writes there. The user: not root, not
# httpd's User, not of its groups.
my @hgids = ($ngid, map { (getgrnam $_)[2] } split ' ', `id -Gn $vars->{user}`);
my ($owner, $ouid, $ogid);
for my $name (qw(daemon bin sys games man lp mail news uucp proxy backup list)) {
    my @pw = getpwnam($name) or next;
    next if !$pw[2] || $pw[2] == $nobody || grep { $_ == $pw[3] } @hgids;
    ($owner, $ouid, $ogid) = ($name, @pw[2, 3]);
    last;
}
die "no user that is neither root nor $vars->{user} to own the runtime directory\n"
    unless $owner;
chown $ouid, $ogid, $dir or die "chown $dir: $!";
sub plant {
    my @names = @_;
    my $kid = fork // die "fork: $!";
    if (!$kid) {
        $) = "$ogid $ogid";
        $( = $ogid;
        $< = $> = $ouid;
        my $n = 0;
        $n += symlink($target, "$dir/$_") ? 1 : 0 for @names;
        POSIX::_exit($n == @names ? 0 : 1);
    }
    waitpid $kid, 0;
    return $? == 0;
}
# The graceful restart writes the runner's configuration.
ok t_cmp(plant('cgiplus-runner.conf.new'), 1,
         "$owner planted a link to a root file at the configuration's temporary name");
httpd_graceful($dir) or die "graceful failed";
sleep 1.5;
# Killing the runner makes httpd start another, which writes its pidfile
# through a temporary name made of its pid: links for the next 2000 pids.
my $last = (slurp('/proc/sys/kernel/ns_last_pid') =~ /(\d+)/)[0];
ok t_cmp(plant(map { "cgiplus-runner.pid.$_.tmp" } $last + 1 .. $last + 2000), 1,
         'and at the temporary names of the next runners\' pidfiles');
kill 'KILL', $rpid;
my $new = 0;
for (1 .. 60) { $new = runner_pid(); last if $new && $new != $rpid && kill 0, $new; sleep 0.1 }
ok t_cmp($new && $new != $rpid ? 1 : 0, 1, "a new runner runs ($rpid -> $new, links from "
         . ($last + 1) . ')');
ok t_cmp(slurp($target), "precious\n", 'the root file the links point at is unchanged');
ok t_cmp(-l $target || (stat $target)[4] != 0 ? 0 : 1, 1, 'and is still root\'s own file');
ok t_cmp(-f "$dir/cgiplus-runner.conf" && !-l "$dir/cgiplus-runner.conf" ? 1 : 0, 1,
         'the runner\'s configuration is a file of its own');
ok t_cmp(-f "$dir/cgiplus-runner.pid" && !-l "$dir/cgiplus-runner.pid" ? 1 : 0, 1,
         'so is its pidfile');
my $code = 0;
for (1 .. 30) { last if ($code = get('/s/app.pl')) == 200; sleep 0.2 }
ok t_cmp($code, 200, 'httpd still serves the script');
my @left = grep { !-l $_ } glob("$dir/cgiplus-runner.*.*");
ok t_cmp("@left", '', 'no temporary file left behind');
chown 0, 0, $dir;
