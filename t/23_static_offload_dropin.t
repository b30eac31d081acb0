# X-CGIplus-File in the drop-in scopes (CGIplusCompat, the fcgid-script
# handler) is the peer's: mod_cgid and mod_fcgid pass the header to the
# client and send the script's body. Before, mod_cgiplus honoured it there
# as in its own scopes: a CGI script (a proxy copying an upstream's
# headers, say) made httpd send a file under any offload root the server
# had, inherited ones included (a virtual host gets the main server's),
# and with none configured answered 403 where the peer answered 200. Now
# it is honoured in a drop-in scope only where the server itself (this
# virtual host, or the main server for its own requests) names a
# CGIplusOffloadRoot: that is the admin's opt-in. Compared with the real
# mod_cgid and mod_fcgid, in private httpds.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_dir libexec);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);

plan tests => 11,
    need { 'needs FCGI (libfcgi-perl)' => !system('perl -MFCGI -e1 2>/dev/null'),
           'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so' };

my ($port, $vport, $fport) = free_ports(3);
my $dir = private_dir('offload_dropin');
my $fdir = private_dir('offload_dropin_fcgid');
for my $d ("$dir/cgi", "$dir/fcgi", "$dir/files", "$fdir/fcgi") {
    mkdir $d;
    chmod 0755, $d;
}
write_file("$dir/files/secret.txt", "the offloaded file\n", 0644);
write_file("$dir/cgi/off.cgi", <<"SH", 0755);
#!/bin/sh
printf 'Content-Type: text/plain\\nX-CGIplus-File: %s\\n\\nthe script body\\n' '$dir/files/secret.txt'
SH
my $app = <<"PL";
#!/usr/bin/perl
use FCGI;
my \$req = FCGI::Request();
while (\$req->Accept() >= 0) {
    print "Content-Type: text/plain\\r\\nX-CGIplus-File: $dir/files/secret.txt\\r\\n\\r\\nthe script body\\n";
}
PL
write_file("$dir/fcgi/off.fcgi", $app, 0755);
write_file("$fdir/fcgi/off.fcgi", $app, 0755);

# ours: the main server names an offload root (its own scopes opt in); the
# virtual host inherits it and names none (its drop-in scopes are the
# peers'). /cgid/ is mod_cgid itself.
write_file("$dir/httpd.conf", private_conf($dir, $port, [qw(alias cgid)], <<"CONF"), 0644);
Listen 127.0.0.1:$vport
CGIplusOffloadRoot $dir/files
Alias /cgid/ $dir/cgi/
Alias /compat/ $dir/cgi/
Alias /native/ $dir/cgi/
Alias /fcgid/ $dir/fcgi/
<Directory $dir/cgi>
    Options +ExecCGI
    SetHandler cgi-script
    Require all granted
</Directory>
<Location /compat/>
    CGIplusCompat on
</Location>
<Location /native/>
    SetHandler cgiplus-script
    CGIplusMode cgi
</Location>
<Directory $dir/fcgi>
    Options +ExecCGI
    SetHandler fcgid-script
    Require all granted
</Directory>
<VirtualHost 127.0.0.1:$vport>
    ServerName vhost.test
</VirtualHost>
CONF
# the real mod_fcgid
my $lib = libexec();
write_file("$fdir/httpd.conf", private_conf($fdir, $fport, [qw(alias)], <<"CONF"), 0644);
LoadModule fcgid_module $lib/mod_fcgid.so
FcgidIPCDir $fdir/ipc
FcgidProcessTableFile $fdir/fcgid_shm
Alias /fcgid/ $fdir/fcgi/
<Directory $fdir/fcgi>
    Options +ExecCGI
    SetHandler fcgid-script
    Require all granted
</Directory>
CONF
ok t_cmp(private_start("$dir/httpd.conf", $port), 1, 'our httpd starts');
ok t_cmp(private_start("$fdir/httpd.conf", $fport), 1, "mod_fcgid's httpd starts");

sub get {
    my ($p, $path) = @_;
    my ($code, $h, $body) = curl("http://127.0.0.1:$p$path");
    return "$code " . ($h->{'x-cgiplus-file'} // '-') . " $body";
}

my $script = "the script body\n";
my $file = "the offloaded file\n";
my $cgid = get($port, '/cgid/off.cgi');
ok t_cmp($cgid, "200 $dir/files/secret.txt $script", 'mod_cgid: the header goes to the client, with the body');
my $fcgid = get($fport, '/fcgid/off.fcgi');
ok t_cmp($fcgid, "200 $dir/files/secret.txt $script", 'mod_fcgid: the header goes to the client, with the body');

# the virtual host: no offload root of its own
ok t_cmp(get($vport, '/compat/off.cgi'), $cgid, 'CGIplusCompat, inherited roots only: as mod_cgid');
ok t_cmp(get($vport, '/fcgid/off.fcgi'), $fcgid, 'fcgid-script, inherited roots only: as mod_fcgid');
ok t_cmp(get($vport, '/native/off.cgi'), "200 - $file", 'its own scope: the file, from the inherited root');
# the main server: the root is its own (the opt-in)
ok t_cmp(get($port, '/compat/off.cgi'), "200 - $file", 'CGIplusCompat, the server names a root: the file');
ok t_cmp(get($port, '/fcgid/off.fcgi'), "200 - $file", 'fcgid-script, the server names a root: the file');
ok t_cmp(get($port, '/native/off.cgi'), "200 - $file", 'its own scope: the file');

# (both httpds are stopped at the end by PrivateHttpd, which private_dir
# told: stopped here first, it waited 5 s for each pid file to come back)
open my $lf, '<', "$dir/error_log" or die "$dir/error_log: $!";
my @refused = grep { /CGIPLUS154[012]:/ } <$lf>;
ok t_cmp(scalar(@refused), 0, 'no offload refused') or diag(@refused);
