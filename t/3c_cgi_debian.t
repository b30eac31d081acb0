# A Debian server moved from mod_cgid to mod_cgiplus, on a copy of this
# machine's stock /etc/apache2 (README: "Moving a Debian server from
# mod_cgid to mod_cgiplus"): a private 127.0.0.1 port, runtime, pid and logs
# in a temporary directory, /usr/lib/cgi-bin replaced by a temporary
# directory in serve-cgi-bin.conf (its only edit), gitweb's own gitweb.conf
# enabled, mod_cgid disabled, the fresh module loaded. Without the shipped
# conf/cgiplus-serve-cgi-bin.conf Debian's guarded sections switch off
# (404); with it /cgi-bin/ and /gitweb/ run through the runner; with
# mod_cgid loaded again, mod_cgid serves them and the snippet is inert.
# httpd is started with -d (never systemctl) and stopped by its pid.
use strict;
use lib "t/lib";
use FreePort qw(free_port);
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use File::Copy qw(copy);
use lib 't/lib';
use RawHTTP qw(raw_request);
use PrivateHttpd qw(private_start private_stop fresh_dir);

plan tests => 11;

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $tmp = "$vars->{t_logs}/debian";
my $etc = "$tmp/apache2";
my $port = free_port();
my $hp = "127.0.0.1:$port";

fresh_dir($tmp);
system('cp', '-a', '/etc/apache2', $etc) == 0 or die "cannot copy /etc/apache2\n";
mkdir "$tmp/$_" for qw(run run/socks lock log cgi-bin);
chmod 0755, map { "$tmp/$_" } qw(run run/socks lock log cgi-bin);

sub edit {
    my ($file, $sub) = @_;
    open my $in, '<', $file or die "$file: $!";
    local $_ = do { local $/; <$in> };
    close $in;
    $sub->();
    unlink $file; # may be a symlink into conf-available: write a file
    open my $out, '>', $file or die "$file: $!";
    print $out $_;
    close $out;
}

# The private port; no other Listen.
edit("$etc/ports.conf", sub { s/^\s*Listen\s+\S+\s*$//mg; $_ = "Listen 127.0.0.1:$port\nServerName 127.0.0.1\n$_" });
for my $site (glob "$etc/sites-enabled/*.conf") {
    edit($site, sub { s/<VirtualHost \*:80>/<VirtualHost *:$port>/g });
}
# /usr/lib/cgi-bin is the system's: a temporary directory stands in for it.
edit("$etc/conf-enabled/serve-cgi-bin.conf", sub { s{/usr/lib/cgi-bin}{$tmp/cgi-bin}g });
# gitweb's own configuration (package gitweb), enabled as a2enconf does.
my $gitweb = -e "$etc/conf-available/gitweb.conf";
symlink '../conf-available/gitweb.conf', "$etc/conf-enabled/gitweb.conf"
    if $gitweb && !-e "$etc/conf-enabled/gitweb.conf";
# CGI modules off, and what would write outside the copy (mod_fcgid's
# process table under /var/lib) too.
unlink glob "$etc/mods-enabled/{cgi,cgid,fcgid}.{load,conf}";
open my $fh, '>', "$etc/mods-enabled/cgiplus.load" or die;
print $fh "LoadModule cgiplus_module $top/mod_cgiplus/.libs/mod_cgiplus.so\n",
          "CGIplusRunnerPath $top/runner/cgiplus-runner\n",
          # the runner's pool lines are info; they follow httpd's LogLevel
          "LogLevel warn cgiplus:info\n";
close $fh;

# A plain CGI script, as found in /usr/lib/cgi-bin.
open $fh, '>', "$tmp/cgi-bin/who.sh" or die;
print $fh "#!/bin/sh\nprintf 'Content-Type: text/plain\\n\\n'\n",
          "echo \"parent=\$(cat /proc/\$PPID/comm)\"\necho \"gateway=\$GATEWAY_INTERFACE\"\n";
close $fh;
chmod 0755, "$tmp/cgi-bin/who.sh";

%ENV = (%ENV, APACHE_RUN_USER => $vars->{user}, APACHE_RUN_GROUP => $vars->{group},
        APACHE_RUN_DIR => "$tmp/run", APACHE_PID_FILE => "$tmp/run/apache2.pid",
        APACHE_LOCK_DIR => "$tmp/lock", APACHE_LOG_DIR => "$tmp/log", LANG => 'C');
my @args = ('-d', $etc);
sub start { private_start("$etc/apache2.conf", $port, @args) }
sub stop { private_stop("$tmp/run/apache2.pid") }

# 1. Only the module: Debian's guarded sections are off.
ok t_cmp(start(), 1, 'stock layout with mod_cgiplus instead of mod_cgid starts');
ok t_cmp(raw_request($hp, GET => '/cgi-bin/who.sh')->{code}, 404,
         'without the snippet /cgi-bin/ is off (Debian guards it with IfModule mod_cgi/mod_cgid)');
stop();

# 2. The shipped snippet in conf-available, enabled as a2enconf does: read
# before serve-cgi-bin.conf and gitweb.conf by its name.
copy("$top/conf/cgiplus-serve-cgi-bin.conf", "$etc/conf-available/cgiplus-serve-cgi-bin.conf") or die;
symlink '../conf-available/cgiplus-serve-cgi-bin.conf', "$etc/conf-enabled/cgiplus-serve-cgi-bin.conf" or die;
ok t_cmp(start(), 1, 'with conf/cgiplus-serve-cgi-bin.conf: starts');
my $r = raw_request($hp, GET => '/cgi-bin/who.sh');
ok t_cmp($r->{code}, 200, '/cgi-bin/who.sh: 200');
ok t_cmp($r->{body}, qr/^parent=cgiplus-runner$/m, 'run by the runner');
ok t_cmp($r->{body}, qr/^gateway=CGI\/1\.1$/m, 'as a CGI script');
$r = raw_request($hp, GET => '/gitweb/');
ok t_cmp($gitweb ? $r->{body} : 'gitweb is not installed (run-tests installs it)',
         qr/gitweb/i, 'gitweb.conf (Debian\'s, unedited) is on: gitweb.cgi answers');
stop();
open $fh, '<', "$tmp/log/error.log";
my $log = do { local $/; <$fh> };
ok t_cmp($log, qr{CGIPLUS2006: new pool #\d+ for /usr/share/gitweb/(?:index|gitweb)\.cgi},
         'gitweb.cgi ran in the runner');

# 3. mod_cgid loaded again: it serves CGI, the snippet does nothing.
for my $f (glob "$etc/mods-available/cgid.{load,conf}") {
    (my $to = $f) =~ s{/mods-available/}{/mods-enabled/};
    symlink "../mods-available/" . (split m{/}, $f)[-1], $to;
}
ok t_cmp(start(), 1, 'mod_cgid and mod_cgiplus both loaded: starts');
$r = raw_request($hp, GET => '/cgi-bin/who.sh');
ok t_cmp($r->{code}, 200, 'mod_cgid: /cgi-bin/who.sh 200');
ok t_cmp($r->{body}, qr{^parent=\S*apach}m, 'served by mod_cgid (a child of httpd), not the runner');
stop();
