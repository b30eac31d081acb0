# Debian 12's Sympa 6.2 web interface (wwsympa.fcgi, a CGI::Fast loop)
# under mod_fcgid against mod_cgiplus's fcgid-script drop-in, direct and
# relayed. Debian ships Sympa's Apache configuration for mod_proxy_fcgi
# only (conf-available/sympa.conf, to a systemd-run wwsympa.socket): its
# lines are used as they are but for the one the mod_fcgid set-up of
# Sympa's manual changes (the <Location /wws> handler fcgid-script, the
# program by ScriptAlias) and its two state directories (the side's). The
# program must run as the sympa user (it dies otherwise): each httpd has
# User sympa, as Debian's wwsympa.service. Each side has its own copy of
# the database, lists and spools Sympa's own tools made (sympa.pl
# --health_check, --create_list; the listmaster's password by
# Sympa::User), named by FcgidInitialEnv SYMPA_CONFIG. The walk: the home
# page, the list index, a list's page, the login form, a wrong and a right
# password (POSTs with the form's CSRF token), pages behind the login (the
# user's lists, the list's admin and members pages, the listmaster's), the
# CSS wwsympa writes and a static JS file, an unknown list, an unknown
# action, a missing file, HEAD, logout and a page after it. Status,
# Content-Type, other headers (but the date, Server, the framing, the
# session cookie's value, the CSS file's mtime in its ETag) and bodies
# (the CSRF token, times, the port, the CSS's version aside) must match;
# the walk did what it says on every side; one wwsympa.fcgi process
# serves each side's walk.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir libexec);
use FreePort qw(free_ports);
use AppTest qw(write_file);
use SideBySide qw(walk same_pairs pool_of);
use FcgidPeer qw(fcgid_side_load fcgid_procs);

my $debconf = '/etc/apache2/conf-available/sympa.conf';
my $fcgi = '/usr/lib/cgi-bin/sympa/wwsympa.fcgi';
my $sympa = '/usr/lib/sympa/bin/sympa.pl';
my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/fcgid_sympa";
my $lm = 'listmaster@sympa.test';
# Sympa's CSRF token, the hidden input every form carries
sub csrf { ($_[0]{body} =~ /name="csrftoken" value="([^"]*)"/)[0] // '' }
# The login form's fields as a browser sends them (its hidden inputs, the
# button), the token from the side's last page
sub login_form {
    my ($last, $pass) = @_;
    my %f = (action => 'login', csrftoken => csrf($last), email => $lm, passwd => $pass,
             action_login => 'Login', submit => 'submit',
             map { ($_ => '') } qw(previous_action previous_list only_passwd referer failure_referer list nomenu));
    return map { ('--data-urlencode', "$_=$f{$_}") } sort keys %f;
}
my @steps = (
    sub { [GET => '/wws'] },
    sub { [GET => '/wws/lists'] },
    sub { [GET => '/wws/info/testlist'] },
    sub { [GET => '/wws/login'] },
    sub { [POST => '/wws', login_form($_[0], 'wrong-pass')] },
    sub { [POST => '/wws', login_form($_[0], 's3cret-pass')] },
    sub { [GET => '/wws/my'] },
    sub { [GET => '/wws/admin/testlist'] },
    sub { [GET => '/wws/review/testlist'] },
    sub { [GET => '/wws/serveradmin'] },
    sub { [GET => '/css-sympa/sympa.test/style.css'] },
    sub { [GET => '/static-sympa/js/sympa.js'] },
    sub { [GET => '/wws/info/nosuchlist'] },
    sub { [GET => '/wws/nosuchaction'] },
    sub { [GET => '/static-sympa/js/nosuch.js'] },
    sub { [HEAD => '/wws/lists'] },
    sub { [GET => '/wws/logout'] },
    sub { [GET => '/wws/admin/testlist'] },
);
my @pairs = (['dropin', 'fcgid'], ['relayed', 'fcgid']);
plan tests => 3 + 3 + 5 * @pairs * @steps + 3 + 3,
    need { 'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so',
           'needs Sympa (Debian package sympa)' => (-r $debconf && -x $fcgi && -x $sympa && defined(scalar getpwnam('sympa'))),
           'needs root (httpd and Sympa\'s tools as the sympa user)' => $> == 0 };

fresh_dir($dir);
my ($gport, $dport, $rport) = free_ports(3);
my %port = (fcgid => $gport, dropin => $dport, relayed => $rport);

# ---- a side's Sympa: every directory it writes its own; mail goes to a
# file (nothing is sent), the aliases nowhere
mkdir "$dir/mail";
write_file("$dir/sendmail", "#!/bin/sh\ncat >> $dir/mail/out\n", 0755);
sub sympa_conf {
    my ($w, $port) = @_;
    my @spool = qw(msg moderation digest auth outgoing subscribe topic bounce task automatic bulk tmp viewmail);
    mkdir $w;
    mkdir "$w/$_" for qw(list_data spool bounce arc css pictures);
    mkdir "$w/spool/$_" for @spool;
    my %q = (queue => 'msg', queuemod => 'moderation', queuedigest => 'digest', queueauth => 'auth',
             queueoutgoing => 'outgoing', queuesubscribe => 'subscribe', queuetopic => 'topic',
             queuebounce => 'bounce', queuetask => 'task', queueautomatic => 'automatic',
             queuebulk => 'bulk', tmpdir => 'tmp', viewmail_dir => 'viewmail');
    write_file("$w/sympa.conf", <<"CONF" . join('', map { "$_\t$w/spool/$q{$_}\n" } sort keys %q), 0644);
domain\tsympa.test
listmaster\t$lm
db_type\tSQLite
db_name\t$w/sympa.sqlite
lang\ten_US
wwsympa_url\thttp://127.0.0.1:$port/wws
static_content_path\t/usr/share/sympa/static_content
css_path\t$w/css
css_url\t/css-sympa
pictures_path\t$w/pictures
pictures_url\t/pictures-sympa
home\t$w/list_data
spool\t$w/spool
bounce_path\t$w/bounce
arc_path\t$w/arc
aliases_program\tnone
sendmail_aliases\t$w/aliases
sendmail\t$dir/sendmail
CONF
}
sub as_sympa { my ($conf, $cmd) = @_; `su -s /bin/sh sympa -c 'SYMPA_CONFIG=$conf $cmd' 2>&1` }
sympa_conf("$dir/master", 0);
# (not $dir: httpd's User must not write above the runner's socket)
system('chown', '-R', 'sympa:sympa', "$dir/master", "$dir/mail") == 0 or die "chown\n";
my $out = as_sympa("$dir/master/sympa.conf", "$sympa --health_check");
ok t_cmp(-s "$dir/master/sympa.sqlite" ? 'a database' : "none: $out", 'a database',
         "sympa.pl --health_check made a database");
write_file("$dir/list.xml", <<'XML', 0644);
<?xml version="1.0" ?>
<list>
<listname>testlist</listname>
<type>discussion_list</type>
<subject>A list made by the test, caf&#233;</subject>
<description>Its description.</description>
<status>open</status>
<topic>computing</topic>
<owner multiple="1"><email>listmaster@sympa.test</email></owner>
</list>
XML
write_file("$dir/adduser.pl", <<'PL', 0644);
use lib '/usr/share/sympa/lib';
use Conf;
use Sympa::User;
Conf::load() or die "no configuration\n";
print Sympa::User::add_global_user({email => 'listmaster@sympa.test', password => 's3cret-pass',
                                    gecos => 'List Master'}) ? "added\n" : "failed\n";
PL
$out = as_sympa("$dir/master/sympa.conf", "perl $dir/adduser.pl");
ok t_cmp($out, qr/^added$/m, "the listmaster's account, with a password, by Sympa::User");
$out = as_sympa("$dir/master/sympa.conf", "$sympa --create_list --robot sympa.test --input_file $dir/list.xml");
ok t_cmp(-r "$dir/master/list_data/testlist/config" ? 'made' : "not made: $out", 'made', 'sympa.pl --create_list made a list');

# a copy a side, its configuration naming its own directories and port
for my $side (sort keys %port) {
    system('cp', '-a', "$dir/master", "$dir/$side") == 0 or die "cp\n";
    sympa_conf("$dir/$side", $port{$side});
    system('chown', '-R', 'sympa:sympa', "$dir/$side") == 0 or die "chown\n";
}

# ---- Debian's sympa.conf in Sympa's mod_fcgid form (above), in each
my $deb = do { local $/; open my $fh, '<', $debconf or die "$debconf: $!"; <$fh> };
my $n = 0;
$n++ if $deb =~ s{^<IfModule mod_proxy_fcgi\.c>\n(.*)^</IfModule>\n}{$1}sm;
$n++ if $deb =~ s{^(\s*)SetHandler "proxy:unix:/run/sympa/wwsympa\.socket\|fcgi://"\n}{$1SetHandler fcgid-script\n}m;
die "$debconf is not the file this test knows\n" unless $n == 2;
for my $side (sort keys %port) {
    my $conf = $deb =~ s{/var/lib/sympa/(css|pictures)\b}{$dir/$side/$1}gr;
    mkdir "$dir/$side-httpd";
    write_file("$dir/$side-httpd/httpd.conf", private_conf("$dir/$side-httpd", $port{$side}, [qw(alias mime dir authz_host)], <<"CONF"), 0644);
TypesConfig /etc/mime.types
@{[ fcgid_side_load($side, "$dir/$side-httpd") ]}
User sympa
Group sympa
# Debian's sympa.conf, mod_fcgid's handler
$conf
ScriptAlias /wws $fcgi
FcgidInitialEnv SYMPA_CONFIG $dir/$side/sympa.conf
CONF
    ok t_cmp(private_start("$dir/$side-httpd/httpd.conf", $port{$side}), 1, "$side: a private httpd");
}
END { private_stop("$dir/$_-httpd/httpd.pid") for qw(fcgid dropin relayed) }

# What may differ: the port, the CSRF token, times.
sub norm {
    my ($s, $port) = @_;
    $s =~ s/127\.0\.0\.1:$port/127.0.0.1:PORT/g;
    $s =~ s/(name="csrftoken" value=")[^"]*/$1TOKEN/g;
    # the CSS's version: an MD5 of every configuration value, the side's
    # directories and URL among them
    $s =~ s{(/style\.css\?h=)[0-9a-f]{32}}{$1HASH}g;
    $s =~ s/\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}(?: \d\d:\d\d(?::\d\d)?)?/TIME/g;
    $s =~ s/\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d)?\b/TIME/g;
    return $s;
}
sub heads {
    my ($h) = @_;
    my @k = grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive|location)$/ } keys %$h;
    return join "\n", map { my $v = $h->{$_};
                            $v =~ s/^(sympa_session)=[^;]+/$1=VALUE/ if $_ eq 'set-cookie';
                            $v = 'TIME' if /^(expires|last-modified)$/;
                            # httpd's ETag of the CSS, size and mtime: each
                            # side's process wrote its own copy, at its time
                            $v =~ s/^"([0-9a-f]+)-[0-9a-f]+"$/"$1-MTIME"/ if $_ eq 'etag';
                            "$_: $v" } sort @k;
}
my (@diff, @seen);
walk(\@steps, \%port, $dir, \&norm, sub {
    my ($what, $r) = @_;
    push @seen, $r;
    # for a failing run's reader
    write_file(sprintf("$dir/body-%02d-$_", scalar @seen), $r->{$_}{body}, 0644) for sort keys %$r;
    same_pairs(\@pairs, $what, $r, \&heads, \@diff);
});
t_debug("differs: $_") for @diff;

# The walk did what it says, on every side (pages both sides got wrong
# alike would pass above): Sympa's words for the wrong password, the
# listmaster's page once logged in, the list's CSS, the unknown action,
# the log-in form again once logged out.
# (by step number)
my %expect = (5 => qr/Provided password is incorrect/, 10 => qr/Listmaster Admin/, 11 => qr/\A\S.*\{/s,
              14 => qr/Unknown action/, scalar(@steps) => qr/you need to login/);
for my $side (sort keys %port) {
    my @got = map { ($seen[$_ - 1]{$side}{body} =~ $expect{$_} ? 'yes' : 'no') } sort { $a <=> $b } keys %expect;
    push @got, $seen[5]{$side}{code} . (($seen[5]{$side}{h}{'set-cookie'} // '') =~ /^sympa_session=/ ? ' session' : '');
    ok t_cmp("@got", 'yes yes yes yes yes 302 session',
             "$side: the wrong password refused, the right one logged in, the listmaster's page, the CSS, "
             . 'the unknown action, logged out');
}

# One wwsympa.fcgi process a side served the walk.
my @procs = fcgid_procs("$dir/fcgid-httpd/httpd.pid", qr/wwsympa\.fcgi/);
my @started = do { local $/; open my $fh, '<', "$dir/fcgid-httpd/error_log"; <$fh> // '' } =~ /mod_fcgid: server \S+ started/g;
ok t_cmp(scalar(@procs) . ' running, ' . scalar(@started) . ' started', '1 running, 1 started',
         'mod_fcgid: one wwsympa.fcgi process served the walk');
for my $side (qw(dropin relayed)) {
    my $pool = pool_of("http://127.0.0.1:$port{$side}/status", $fcgi);
    ok t_cmp($pool ? "$pool->{counters}{spawns} spawn" : 'no pool', '1 spawn',
             "$side: one wwsympa.fcgi process served the walk");
}
