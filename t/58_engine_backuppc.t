# Issue 22, part 1: BackupPC 4's admin CGI (Debian 12's backuppc,
# unmodified: realindex.cgi and the BackupPC::CGI::* module of each action,
# required as it comes) through the Perl engine and through CGIplusCompat,
# each against mod_cgid, in three virtual hosts of one private httpd,
# behind Basic auth as Debian's /etc/backuppc/apache.conf sets it up (the
# CGI takes its user from REMOTE_USER: backuppc, its administrator, and
# ann, the user of one host). mod_cgid and CGIplusCompat run Debian's
# set-uid wrapper index.cgi (a copy set-uid to backuppc, group httpd's, as
# Debian installs it for www-data), which runs realindex.cgi as backuppc;
# the engine runs realindex.cgi with CGIplusUser backuppc (the CGI refuses
# any other user). A walk of 29 requests without the BackupPC server (its
# "unable to connect" pages, the documentation, logs, the configuration
# editor and its menus' POSTs, a backup's confirmation form, httpd's 401),
# then 16 with a server of the test's own running (status, host pages, the
# queue, its log, RSS, metrics, a dequeue's POST): every step has mod_cgid's
# status, type, Location, Set-Cookie and body on both; one engine process
# serves them all, and from its second request on it reads neither
# realindex.cgi again nor any module twice (strace): each file is compiled
# once.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp t_debug);
use Digest::SHA qw(sha1_base64);
use JSON::PP ();
use lib 't/lib', 't/htdocs/apps', 't/htdocs/pool/lib';
use Time::HiRes qw(sleep);
use PrivateHttpd qw(private_start private_stop private_dir pid_in);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use PoolTest qw(strace_on strace_off);
use SideBySide qw(cgid_engine_conf same_as_cgid pool_of);

my $wrapper = '/usr/lib/backuppc/cgi-bin/index.cgi';
my $real = '/usr/share/backuppc/lib/realindex.cgi';
my $I = '/backuppc/index.cgi';
my @admin = ('-u', 'backuppc:secret');
my @ann = ('-u', 'ann:secret');
my @steps = (
    [$I, @admin],                                       # the status page: no server
    ["$I?action=summary", @admin],
    ["$I?action=view&type=docs", @admin],
    ["$I?action=LOGlist", @admin],
    ["$I?action=LOGlist&host=localhost", @admin],
    ["$I?action=view&type=LOG", @admin],
    ["$I?action=view&type=config", @admin],
    ["$I?action=view&type=hosts", @admin],
    ["$I?action=editConfig", @admin],
    ["$I?action=editConfig&host=localhost", @admin],
    [$I, @admin, '--data', 'action=editConfig&menu=server&newMenu=xfer&saveAction='],
    [$I, @admin, '--data', 'action=editConfig&host=localhost&menu=xfer&newMenu=backup&saveAction='],
    ["$I?action=editConfig&newMenu=hosts", @admin],
    ["$I?host=localhost", @admin],
    ["$I?action=browse&host=localhost", @admin],
    ["$I?action=browse&host=localhost&num=0", @admin],
    ["$I?action=Start_Incr_Backup&host=localhost", @admin],
    [$I, @admin, '--data', 'action=Start_Full_Backup&host=localhost&hostIP=localhost&doit=1'],
    [$I, @admin, '--data', 'action=Reload'],
    ["$I?action=queue", @admin],
    ["$I?action=adminOpts", @admin],
    ["$I?action=emailSummary", @admin],
    ["$I?action=rss", @admin],
    ["$I?host=nosuch", @admin],
    ["$I?action=nosuch", @admin],
    [$I, @ann],
    ["$I?action=editConfig", @ann],
    ["$I?host=localhost", @ann],
    [$I],                                               # no credentials: httpd's 401
);
# Then with the server running.
my @served = (
    [$I, @admin],
    ["$I?action=summary", @admin],
    ["$I?host=localhost", @admin],
    ["$I?host=pc1", @ann],
    [$I, @ann],
    ["$I?action=queue", @admin],
    ["$I?action=view&type=LOG", @admin],
    ["$I?action=LOGlist", @admin],
    ["$I?action=rss", @admin],
    ["$I?action=metrics&format=json", @admin],
    ["$I?action=emailSummary", @admin],
    ["$I?action=Start_Incr_Backup&host=localhost", @admin],     # its confirmation form
    ["$I?action=Stop_Dequeue_Backup&host=pc1", @ann],
    [$I, @ann, '--data', 'action=Stop_Dequeue_Backup&host=pc1&doit=1&backoff=2'],
    ["$I?host=pc1", @ann],
    ["$I?action=adminOpts", @admin],
);
plan tests => 2 * 6 * (@steps + @served) + 6,
    need { 'needs BackupPC (Debian package backuppc)' => -x $wrapper && -r $real,
           'needs strace' => system('command -v strace >/dev/null 2>&1') == 0,
           'needs root (a set-uid copy of the wrapper, a pool of user backuppc)' => $> == 0 };

my $vars = Apache::Test::config()->{vars};
# A server a failed run left behind, stopped (by its pid file) before its
# directory goes.
my $run = "$vars->{t_logs}/backuppc/run";
stop_server();
my $dir = private_dir('backuppc');
my %port;
@port{qw(cgid compat engine)} = free_ports(3);
mkdir "$dir/$_" for qw(cgi top top/pc top/cpool top/pool top/log run);
system('install', '-o', 'backuppc', '-g', $vars->{group}, '-m', '4750', $wrapper, "$dir/cgi/index.cgi") == 0
    or die "install $wrapper\n";
# Debian's configuration, with a TopDir, LogDir and RunDir of the test's;
# httpd and the server see it at /etc/backuppc (its ConfDir, compiled in),
# bound there in a mount namespace of their own. Backups disabled, and
# the server's one wakeup 12 hours away: nothing it does on its own (a
# backup, its nightly run, its log) comes in the middle of the walk. No
# smbclient, nmblookup (not installed: the server refuses to start with a
# path that is not there; no host here is backed up over SMB). One more
# host, ann's. Its files only (not Debian's htpasswd), backuppc's, as
# Debian makes them (the CGI writes its LOCK files beside them).
mkdir "$dir/etc";
system('cp', map("/etc/backuppc/$_", qw(config.pl hosts localhost.pl)), "$dir/etc") == 0 or die "cp /etc/backuppc\n";
symlink '/etc/backuppc', "$dir/etc/pc" or die "symlink: $!";    # Debian's: host files at pc/HOST.pl
open my $cf, '<', "$dir/etc/config.pl" or die "config.pl: $!";
my $conf = do { local $/; <$cf> };
close $cf;
my %set = (TopDir => "'$dir/top'", LogDir => "'$dir/top/log'", RunDir => "'$run'", BackupsDisable => 1,
           WakeupSchedule => '[' . ((localtime)[2] + 12) % 24 . ']',
           SmbClientPath => "''", NmbLookupPath => "''");
$conf =~ s/^\$Conf\{$_\}\s*=.*;$/\$Conf{$_} = $set{$_};/m or die "no \$Conf{$_} in config.pl\n" for sort keys %set;
write_file("$dir/etc/config.pl", $conf, 0644);
open my $hf, '>>', "$dir/etc/hosts" or die "hosts: $!";
print $hf "pc1         0       ann\n";
close $hf;
system('chown', '-R', 'backuppc:backuppc', "$dir/etc", "$dir/top", $run) == 0 or die "chown\n";
write_file("$dir/htpasswd", join('', map { "$_:{SHA}" . sha1_base64('secret') . "=\n" } qw(backuppc ann)), 0644);
my $engine = "$vars->{top_dir}/lib/perl/cgiplus-engine-perl";
write_file("$dir/httpd.conf", cgid_engine_conf($dir, \%port, "$dir/cgi", ['backuppc/index.cgi'], $engine,
    file => sub { $_[0] eq 'engine' ? $real : "$dir/cgi/index.cgi" },
    grant => ['/usr/share/backuppc/lib'],
    mods => [qw(authn_core authn_file auth_basic authz_user)],
    scope => <<"AUTH",
        AuthType Basic
        AuthName "BackupPC admin"
        AuthUserFile $dir/htpasswd
        Require valid-user
AUTH
    engine => "        CGIplusUser backuppc\n",
    global => "<Location /status>\n    SetHandler cgiplus-status\n</Location>\n"), 0644);
ok t_cmp(private_start("$dir/httpd.conf", $port{compat},
                       ['unshare', '-m', '--propagation', 'private', '--',
                        'sh', '-c', 'mount --bind "$0" /etc/backuppc && exec "$@"', "$dir/etc"]),
         1, 'a private httpd: mod_cgid, the drop-in, the engine');

# The BackupPC server, as backuppc, in httpd's mount namespace; stopped
# by its pid.
sub start_server {
    my $hpid = pid_in("$dir/httpd.pid") or return 0;
    system('nsenter', '-t', $hpid, '-m', '--', 'runuser', '-u', 'backuppc', '--',
           '/usr/share/backuppc/bin/BackupPC', '-d') == 0 or return 0;
    for (1 .. 100) { return 1 if -S "$run/BackupPC.sock"; sleep 0.1 }
    return 0;
}
sub stop_server {
    my $pid = pid_in("$run/BackupPC.pid") or return;
    kill 'TERM', $pid;
    for (1 .. 100) { last unless kill 0, $pid; sleep 0.1 }
}
END { stop_server() }

# What may differ between two runs of the same page, set aside: the time
# a status page says it was made, and the time a host page gives a host
# the server has no status time for (BackupPC's timeStamp2(0) is now): a
# minute may tick between the sides; the RSS feed's ages in days, to a
# tenth, of backups there are none of (now - 0: a tenth ticks every 2.4
# hours); and the order of the metrics' JSON objects (Perl's hash order,
# another in each process), compared decoded. Nothing else: the server's
# pid, start time and log are the same for every side.
my $phase = '';
my %engine_said;
sub fetch {
    my ($who, $path, @args) = @_;
    my ($code, $h, $body) = curl(@args, "http://127.0.0.1:$port{$who}$path");
    my $type = $h->{'content-type'} // '';
    $body =~ s/(This status was generated at )[\d-]+ [\d:]+/$1TIME/g;
    $body =~ s/(<li>Last status is state "[^"]*"[^\n]* as of )[\d\/-]+ [\d:]+\./$1TIME./g;
    $body =~ s/^((?:Full|Incr) Age\/[Dd]ays: )\d+\.\d;$/$1AGE;/mg if $path =~ /action=rss\b/;
    $body = JSON::PP->new->canonical->encode(JSON::PP::decode_json($body)) if $type =~ m{^application/json};
    $engine_said{join ' ', $phase || (), $path, @args} = $body if $who eq 'engine';
    return { code => $code, type => $type, loc => $h->{location} // '',
             cookie => $h->{'set-cookie'} // '', own => '', body => $body };
}

# The first step starts the engine and compiles realindex.cgi; the files
# the engine opens from then on, traced.
same_as_cgid([$steps[0]], \&fetch, 'nothing');
my $pool = pool_of("http://127.0.0.1:$port{engine}/status", $engine);
my ($pid) = map { $_->{pid} } @{ $pool->{workers} // [] };
my $st = strace_on($pid // die("no engine worker\n"), '-f', '-e', 'trace=open,openat', '-o', "$dir/strace");
same_as_cgid([@steps[1 .. $#steps]], \&fetch, 'nothing');
ok t_cmp(start_server(), 1, 'the BackupPC server starts');
$phase = 'served';
same_as_cgid(\@served, \&fetch, 'nothing');
strace_off($st);

# The pages are BackupPC's, not an error of the set-up the same on every side.
my %want = ("$I @admin" => qr/Unable to connect to BackupPC server/,
            "$I?action=view&type=docs @admin" => qr/BackupPC: Documentation/,
            "$I @admin --data action=editConfig&menu=server&newMenu=xfer&saveAction=" => qr/XferMethod/,
            "served $I?action=Start_Incr_Backup&host=localhost @admin" => qr/Are you sure\?/,
            "$I?action=editConfig @ann" => qr/Only privileged users can edit configuration/,
            "served $I @admin" => qr/The servers PID is \d+/,
            "served $I @ann --data action=Stop_Dequeue_Backup&host=pc1&doit=1&backoff=2"
                => qr/Reply from server was: ok: no backup was pending or running/);
my @missing = grep { ($engine_said{$_} // '') !~ $want{$_} } sort keys %want;
t_debug("$_: " . substr(($engine_said{$_} // '(none)') =~ s/<[^>]*>//gr =~ s/\s+/ /gr, 0, 600)) for @missing;
ok t_cmp(join(', ', @missing), '',
         'the status page says the server is not there, then its pid; the docs, the editor\'s xfer menu, '
         . 'a confirmation, a refusal, the server\'s reply are there');

$pool = pool_of("http://127.0.0.1:$port{engine}/status", $engine);
ok t_cmp($pool ? "spawns $pool->{counters}{spawns}, served " . ($pool->{counters}{served} >= @steps + @served - 1 ? 'all' : $pool->{counters}{served})
               : 'no pool', 'spawns 1, served all', 'one engine process served the walk');
ok t_cmp(join(' ', map { $_->{pid} } @{ $pool->{workers} // [] }), $pid, "it is the first step's ($pid)");
my %opened;
open my $tr, '<', "$dir/strace" or die "$dir/strace: $!";
# Modules and the script; not the language file (BackupPC/Lang/en.pm),
# which BackupPC::Lib's ConfigRead loads with `do` as it reads config.pl,
# again at a host's pages, as in each CGI process.
while (<$tr>) {
    next unless /open(?:at)?\((?:\w+, )?"([^"]+\.pm|\Q$real\E)", .*\) = \d+$/;
    my $f = $1;
    $opened{$f}++ unless $f =~ m{/BackupPC/Lang/};
}
close $tr;
my @twice = grep { $opened{$_} > 1 } sort keys %opened;
my @actions = grep { m{/BackupPC/CGI/\w+\.pm$} } keys %opened;
ok t_cmp("realindex.cgi " . ($opened{$real} // 0) . ", twice: @twice, action modules: " . (@actions >= 8 ? 'loaded' : scalar @actions),
         'realindex.cgi 0, twice: , action modules: loaded',
         'after its first run the engine reads neither realindex.cgi again nor any module twice, '
         . 'and loads the actions\' modules (BackupPC::CGI::*) as they come');
private_stop("$dir/httpd.pid");
