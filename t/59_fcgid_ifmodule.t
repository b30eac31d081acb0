# Packaged mod_fcgid set-ups guard their lines with <IfModule mod_fcgid.c>:
# Debian's own mods-available/fcgid.conf (AddHandler fcgid-script .fcgi)
# and munin's apache24.conf (its CGI directory: SetHandler fcgid-script
# there, else cgi-script). With mod_fcgid swapped for mod_cgiplus those
# sections were skipped: .fcgi files were sent as text, munin's FastCGI
# grapher fell to cgi-script (404 without CGIplusCompat, one process per
# request with it). LoadModule cgiplus_fcgid_module (mod_cgiplus.so) answers
# to mod_fcgid's name: both files run unedited, persistent, their Fcgid*
# lines in force; it refuses to stand alone or beside mod_fcgid.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/pool/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop private_check fresh_dir libexec);
use FreePort qw(free_port);
use AppTest qw(write_file curl);

my $debian_fcgid = '/etc/apache2/mods-available/fcgid.conf';
plan tests => 12,
    need { 'needs CGI::Fast' => !system('perl -MCGI::Fast -e1 2>/dev/null'),
           'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so',
           "needs Debian's $debian_fcgid (libapache2-mod-fcgid)" => -r $debian_fcgid };

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $dir = "$vars->{t_logs}/fcgid_ifmodule";
my $port = free_port();
my $base = "http://127.0.0.1:$port";
fresh_dir($dir);
mkdir "$dir/$_" for qw(www cgi);
chmod 0755, "$dir/www", "$dir/cgi";

# A CGI::Fast program: its pid and how many requests it has served.
my $app = <<'PL';
#!/usr/bin/perl
use CGI::Fast;
my $n = 0;
while (my $q = CGI::Fast->new) {
    $n++;
    print "Content-Type: text/plain\r\n\r\npid=$$ n=$n role=", $ENV{FCGI_ROLE} // 'none', "\n";
}
PL
write_file("$dir/www/app.fcgi", $app, 0755);
write_file("$dir/cgi/grapher", $app, 0755);

# munin's apache24.conf (Debian 12, munin 2.0.73), its common part as
# shipped, the paths ours
my $munin = <<'CONF';
ScriptAlias /munin-cgi/munin-cgi-graph /usr/lib/munin/cgi/munin-cgi-graph

<Directory /usr/lib/munin/cgi>
    Require local
    <IfModule mod_fcgid.c>
        SetHandler fcgid-script
    </IfModule>
    <IfModule !mod_fcgid.c>
        SetHandler cgi-script
    </IfModule>
</Directory>
CONF
$munin =~ s{/usr/lib/munin/cgi/munin-cgi-graph}{$dir/cgi/grapher};
$munin =~ s{/usr/lib/munin/cgi}{$dir/cgi};

my $lib = libexec();
my $common = <<"CONF";
LoadModule alias_module $lib/mod_alias.so
LoadModule mime_module $lib/mod_mime.so
LoadModule authz_host_module $lib/mod_authz_host.so
TypesConfig /etc/mime.types
DocumentRoot $dir/www
<Directory $dir/www>
    Options +ExecCGI
</Directory>
# Debian's own, unedited
Include $debian_fcgid
$munin
<IfModule mod_fcgid.c>
    FcgidMaxRequestsPerProcess 3
</IfModule>
CONF
my $stand_in = "LoadModule cgiplus_fcgid_module $top/mod_cgiplus/.libs/mod_cgiplus.so\n";

my $conf = "$dir/httpd.conf";
write_file($conf, private_conf($dir, $port, [], $stand_in . $common), 0644);
my ($rc, $out) = private_check($conf);
ok t_cmp("$rc " . ($out =~ /Syntax OK/ ? 'ok' : $out), '0 ok',
         "mod_cgiplus and its mod_fcgid stand-in: Debian's fcgid.conf and munin's pass httpd -t");
ok t_cmp(private_start($conf, $port), 1, 'and httpd starts');

# Debian's fcgid.conf: AddHandler fcgid-script .fcgi, inside <IfModule mod_fcgid.c>
my @r = map { [curl("$base/app.fcgi")] } 1 .. 4;
ok t_cmp("$r[0][0] $r[0][2]", qr{^200 pid=\d+ n=1 role=RESPONDER$}, "an .fcgi file runs as FastCGI (Debian's fcgid.conf's AddHandler)");
my ($p1) = $r[0][2] =~ /pid=(\d+)/;
ok t_cmp(join(' ', map { ($_->[2] =~ /pid=(\d+) n=(\d+)/)[0] eq $p1 ? "same n=" . ($_->[2] =~ /n=(\d+)/)[0] : 'other' } @r[1, 2]),
         'same n=2 same n=3', 'one persistent process serves the next requests');
ok t_cmp(($r[3][2] =~ /pid=(\d+)/)[0] ne $p1 && $r[3][2] =~ /n=1 /, 1,
         'FcgidMaxRequestsPerProcess 3 (inside <IfModule mod_fcgid.c>): a new process for the 4th');

# munin's CGI directory: the <IfModule mod_fcgid.c> branch, fcgid-script
my ($code, $h, $b1) = curl("$base/munin-cgi/munin-cgi-graph/dom/host/cpu-day.png");
ok t_cmp("$code $b1", qr{^200 pid=\d+ n=1 role=RESPONDER$}, "munin's grapher runs as fcgid-script (its <IfModule mod_fcgid.c> branch)");
(undef, undef, my $b2) = curl("$base/munin-cgi/munin-cgi-graph/dom/host/load-day.png");
ok t_cmp(($b2 =~ /pid=(\d+)/)[0], ($b1 =~ /pid=(\d+)/)[0], 'and stays: the second graph from the same process');
private_stop("$dir/httpd.pid");

# Without the stand-in the guarded sections are skipped: the grapher is a
# cgi-script nobody serves (what an admin got after swapping the modules).
write_file("$dir/plain.conf", private_conf($dir, $port, [], $common), 0644);
ok t_cmp(private_start("$dir/plain.conf", $port), 1, 'without it, httpd starts on the same files');
($code, undef, my $b3) = curl("$base/app.fcgi");
ok t_cmp($code == 200 && $b3 =~ /^#!\/usr\/bin\/perl/ ? 'source' : "$code", 'source',
         'and an .fcgi file is sent as text (why the stand-in is needed)');
private_stop("$dir/httpd.pid");

# It stands in for mod_fcgid only where mod_cgiplus serves fcgid-script.
write_file("$dir/alone.conf", <<"CONF", 0644);
ServerRoot $dir
PidFile $dir/alone.pid
ErrorLog $dir/alone_log
Listen 127.0.0.1:$port
LoadModule mpm_event_module $lib/mod_mpm_event.so
LoadModule authz_core_module $lib/mod_authz_core.so
$stand_in
CONF
($rc, $out) = private_check("$dir/alone.conf");
ok t_cmp("$rc " . ($out =~ /(CGIPLUS1390)/ ? $1 : $out), qr/^[1-9]\d* CGIPLUS1390$/,
         'loaded without cgiplus_module: httpd -t refuses, saying why (1390)');
write_file("$dir/both.conf", private_conf($dir, $port, [],
           "LoadModule fcgid_module $lib/mod_fcgid.so\nFcgidIPCDir $dir/ipc\n$stand_in"), 0644);
($rc, $out) = private_check("$dir/both.conf");
ok t_cmp("$rc " . ($out =~ /(CGIPLUS1391)/ ? $1 : $out), qr/^[1-9]\d* CGIPLUS1391$/,
         'loaded beside mod_fcgid: refused, saying why (1391)');
write_file("$dir/peer.conf", private_conf($dir, $port, [],
           "LoadModule fcgid_module $lib/mod_fcgid.so\nFcgidIPCDir $dir/ipc\n"), 0644);
($rc, $out) = private_check("$dir/peer.conf");
ok t_cmp("$rc " . ($out =~ /Syntax OK/ ? 'ok' : $out), '0 ok', 'mod_fcgid with mod_cgiplus, no stand-in: as before');
