# Debian 12's Request Tracker 5 (request-tracker5, rt5-db-sqlite) through
# its rt5-apache2 mod_fcgid configuration (apache2-fcgid.conf, unedited:
# rt-server.fcgi by ScriptAlias, its FcgidInitialEnv RT_SITE_CONFIG and
# FcgidMaxRequestLen), under mod_fcgid against mod_cgiplus's fcgid-script
# drop-in, direct and relayed. Each side has a copy of the database the
# package's install made (its root's password set once) and a site
# configuration naming it, by RT_SITE_CONFIG and RT_SITE_CONFIG_DIR. The
# same walk, with a cookie jar each: the log-in page, a wrong and a right
# password, the home page, a ticket created by the form's POST, its page,
# a comment with a file by multipart POST, a search, REST 1.0 and 2.0 by
# the session, a missing page, a static file, HEAD, log-out. Status,
# headers (but the date, Server, the framing, the session cookie's value)
# and bodies (tokens, times, the port and what RT writes in a Perl hash's
# order, each process its own: JSON, hidden inputs) must match; each
# side's database holds the ticket and the file once; one rt-server.fcgi
# process serves each side's walk.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir libexec);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(walk same_pairs);
use FcgidPeer qw(fcgid_side_load fcgid_procs);
use JSON::PP ();

my $debconf = '/etc/request-tracker5/apache2-fcgid.conf';
my $rtdb = '/var/lib/dbconfig-common/sqlite3/request-tracker5/rtdb';
my $fcgi = '/usr/share/request-tracker5/libexec/rt-server.fcgi';
my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/fcgid_rt";
my $attach = "$dir/notes.txt";
my @steps = (
    sub { [GET => '/rt/'] },
    sub { [POST => '/rt/NoAuth/Login.html', '--data', 'user=root&pass=wrong&next=' . nxt($_[0]{body})] },
    sub { [POST => '/rt/NoAuth/Login.html', '--data', 'user=root&pass=s3cret-pass&next=' . nxt($_[0]{body})] },
    sub { [GET => '/rt/'] },
    sub { [GET => '/rt/Ticket/Create.html?Queue=1'] },
    sub { [POST => '/rt/Ticket/Create.html', '-H', "Referer: http://127.0.0.1:$_[0]{port}/rt/Ticket/Create.html?Queue=1",
           '--data-urlencode', 'id=new', '--data-urlencode', 'Queue=1', '--data-urlencode', 'Status=new',
           '--data-urlencode', "Subject=From a test, caf\xc3\xa9", '--data-urlencode', "Content=Made through POST.\n",
           '--data-urlencode', 'Requestors=root@localhost', '--data-urlencode', 'SubmitTicket=Create'] },
    sub { [GET => '/rt/Ticket/Display.html?id=1'] },
    sub { [GET => '/rt/Ticket/Update.html?id=1&Action=Comment'] },
    # a comment with an attachment, multipart
    sub { [POST => '/rt/Ticket/Update.html', '-H', "Referer: http://127.0.0.1:$_[0]{port}/rt/Ticket/Update.html?id=1&Action=Comment",
           '-F', 'id=1', '-F', 'Action=Comment', '-F', 'UpdateType=private', '-F', 'Status=open',
           '-F', "UpdateContent=A comment with a file.\n", '-F', "Attach=\@$attach;type=text/plain",
           '-F', 'SubmitTicket=Update Ticket'] },
    sub { [GET => '/rt/Ticket/Display.html?id=1'] },
    sub { [GET => '/rt/Search/Results.html?Query=id%3E0&Format=%27__id__%27%2C%27__Subject__%27'] },
    sub { [GET => '/rt/REST/1.0/ticket/1/show'] },
    sub { [GET => '/rt/REST/2.0/ticket/1'] },
    sub { [GET => '/rt/NoSuchPage.html'] },
    sub { [GET => '/rt/static/images/request-tracker-logo.svg'] },
    sub { [HEAD => '/rt/'] },
    sub { [GET => '/rt/NoAuth/Logout.html'] },
    sub { [GET => '/rt/Ticket/Display.html?id=1'] },
);
my @pairs = (['dropin', 'fcgid'], ['relayed', 'fcgid']);
plan tests => 4 + 5 * @pairs * @steps + 1 + 3,
    need { 'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so',
           'needs Request Tracker 5 on SQLite (Debian packages request-tracker5, rt5-db-sqlite, rt5-apache2)'
               => (-r $debconf && -x $fcgi && -r $rtdb) };

sub nxt { ($_[0] =~ /name="next" value="([^"]*)"/)[0] // '' }

fresh_dir($dir);
write_file($attach, join('', map { "line $_ of an attachment\n" } 1 .. 2000), 0644);
my ($gport, $dport, $rport) = free_ports(3);
my %port = (fcgid => $gport, dropin => $dport, relayed => $rport);
my ($uid, $gid) = (getpwnam($vars->{user}))[2, 3];

# ---- the package's database, root's password set once; a copy a side
sub site_config {
    my ($w, $port) = @_;
    mkdir $w;
    mkdir "$w/$_" for qw(d mason session);
    write_file("$w/RT_SiteConfig.pm", <<"PM", 0644);
Set(\$rtname, 'rt.test');
Set(\$Organization, 'test');
Set(\$WebPath, '/rt');
Set(\$WebDomain, '127.0.0.1');
Set(\$WebPort, $port);
Set(\$DatabaseType, 'SQLite');
Set(\$DatabaseName, '$w/rtdb');
Set(\$LogToSyslog, undef);
Set(\$LogToSTDERR, 'error');
Set(\$MasonDataDir, '$w/mason');
Set(\$MasonSessionDir, '$w/session');
1;
PM
}
site_config("$dir/master", 0);
system('cp', $rtdb, "$dir/master/rtdb") == 0 or die "cp $rtdb";
my $out = `cd $dir && RT_SITE_CONFIG=$dir/master/RT_SiteConfig.pm RT_SITE_CONFIG_DIR=$dir/master/d perl -I/usr/share/request-tracker5/lib -MRT -e 'RT::LoadConfig(); RT::Init(); my \$u = RT::User->new(RT->SystemUser); \$u->Load("root"); my (\$ok, \$m) = \$u->SetPassword("s3cret-pass"); print "\$ok \$m\\n"' 2>&1`;
ok t_cmp($out, qr/^1 Password changed$/m, "root's password set in a copy of the package's database");
my %side_env;
for my $side (sort keys %port) {
    site_config("$dir/$side", $port{$side});
    system('cp', "$dir/master/rtdb", "$dir/$side/rtdb") == 0 or die 'cp rtdb';
    system('chown', '-R', "$uid:$gid", "$dir/$side") if $> == 0;
}

# ---- rt5-apache2's apache2-fcgid.conf, unedited, in each; the side's
# configuration by the variables RT reads as it starts
my $deb = do { local $/; open my $fh, '<', $debconf or die "$debconf: $!"; <$fh> };
for my $side (sort keys %port) {
    my $load = fcgid_side_load($side, "$dir/$side-httpd");
    mkdir "$dir/$side-httpd";
    write_file("$dir/$side-httpd/httpd.conf", private_conf("$dir/$side-httpd", $port{$side}, [qw(alias mime dir authz_host)], <<"CONF"), 0644);
TypesConfig /etc/mime.types
$load
# Debian's fcgid.conf
AddHandler fcgid-script .fcgi
$deb
FcgidInitialEnv RT_SITE_CONFIG $dir/$side/RT_SiteConfig.pm
FcgidInitialEnv RT_SITE_CONFIG_DIR $dir/$side/d
FcgidIOTimeout 60
CONF
    ok t_cmp(private_start("$dir/$side-httpd/httpd.conf", $port{$side}), 1, "$side: a private httpd");
}
END { private_stop("$dir/$_-httpd/httpd.pid") for qw(fcgid dropin relayed) }

# What may differ: the port, times, tokens, the session.
sub norm {
    my ($s, $port) = @_;
    $s =~ s/127\.0\.0\.1:$port/127.0.0.1:PORT/g;
    $s =~ s/\b[0-9a-f]{32}\b/HEX/g;
    $s =~ s/\b(?:Sun|Mon|Tue|Wed|Thu|Fri|Sat) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d\d \d\d:\d\d:\d\d \d{4}\b/TIME/g;
    $s =~ s/\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\dZ?\b/TIME/g;
    $s =~ s/\b\d+\.\d+s\b/DURATION/g;
    $s =~ s/(Time to display: )[\d.]+/$1DURATION/g;
    $s =~ s{(/NoAuth/(?:rss|iCal)/\w+/)[0-9a-f]{16}/}{$1HEX/}g;
    # hidden inputs written from a hash: each run of them sorted
    $s =~ s{((?:^[ \t]*<input type="hidden"[^\n]*\n)+)}{join '', sort split /^/m, $1}gme;
    # an attribute holding HTML-escaped JSON: its characters, in order
    $s =~ s{(data-options=")([^"]*)"}{$1 . join('', sort split //, $2) . '"'}ge;
    # JSON in a Perl hash's order, each process its own: canonical
    my $json = JSON::PP->new->canonical->allow_nonref;
    $s =~ s{^(RT(?:\.\w+)+\s*= )(\{.*\});$}{$1 . (eval { $json->encode($json->decode($2)) } // $2) . ';'}mge;
    $s = eval { $json->pretty->encode($json->decode($s)) } // $s if $s =~ /\A\s*\{/;
    return $s;
}
sub heads {
    my ($h) = @_;
    my @k = grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive|location)$/ } keys %$h;
    return join "\n", map { my $v = $h->{$_};
                            $v =~ s/^(RT_SID_[^=]+)=[^;]+/$1=VALUE/ if $_ eq 'set-cookie';
                            $v =~ s/\.$1=/.PORT=/ if $_ eq 'set-cookie' && $v =~ /rt\.test\.(\d+)=/;
                            $v = 'TIME' if /^(expires|last-modified)$/;
                            "$_: $v" } sort @k;
}
my @diff;
walk([map { my $st = $_; sub { my %last = (%{ $_[0] }, port => $port{$_[1]}); $st->(\%last, $_[1]) } } @steps],
     \%port, $dir, \&norm, sub {
    my ($what, $r) = @_;
    $what =~ s/next=[0-9a-f]*/next=.../;
    $what =~ s/:\d+\/rt/:PORT\/rt/;
    same_pairs(\@pairs, $what, $r, \&heads, \@diff);
});
t_debug("differs: $_") for @diff;

# The walk went through RT: the ticket is in each side's database, once.
my @tickets = map { `perl -MDBI -e 'my \$d = DBI->connect("dbi:SQLite:dbname=$dir/$_/rtdb", "", "", { RaiseError => 1 }); print join ",", map { \$_->[0] } \@{ \$d->selectall_arrayref("SELECT Subject FROM Tickets ORDER BY id") }; print " + ", \$d->selectrow_array("SELECT COUNT(*) FROM Attachments WHERE Filename = ?", undef, "notes.txt"), " file"' 2>&1` } sort keys %port;
ok t_cmp(join(' | ', @tickets), join(' | ', ("From a test, caf\xc3\xa9 + 1 file") x 3),
         "each side's database holds the ticket its form created and the comment's file, once");

# One rt-server.fcgi process a side served the walk.
sub slurp { open my $fh, '<', $_[0] or return ''; local $/; <$fh> // '' }
my @procs = fcgid_procs("$dir/fcgid-httpd/httpd.pid", qr/rt-server\.fcgi/);
my @started = slurp("$dir/fcgid-httpd/error_log") =~ /mod_fcgid: server \S+ started/g;
ok t_cmp(scalar(@procs) . ' running, ' . scalar(@started) . ' started', '1 running, 1 started',
         'mod_fcgid: one rt-server.fcgi process served the walk');
for my $side (qw(dropin relayed)) {
    my $st = eval { JSON::PP::decode_json((curl("http://127.0.0.1:$port{$side}/status?json"))[2]) } // {};
    my ($mine) = grep { ($_->{script} // '') eq $fcgi } @{ $st->{pools} // [] };
    ok t_cmp($mine ? "$mine->{counters}{spawns} spawn" : 'no pool', '1 spawn',
             "$side: one rt-server.fcgi process served the walk");
}
