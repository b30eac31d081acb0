# Per-server values the module makes once at start (cgiplus_conf.c,
# cgiplus_conf_server_post_config): an fcgid-script request's queue wait
# follows its own server's Timeout (1 s less), and an engine pool's site is
# its own virtual host. A virtual host without a directive of ours shares
# the main server's configuration in httpd: the values written into it for
# each server in turn were the last server's for all of them (a vhost's
# Timeout 5 made the main server's fcgid-script requests give up after 4 s;
# two sites' engine scripts shared one interpreter). Here the main server
# (Timeout 60) and a virtual host with Timeout 5 and nothing of ours serve
# the same fcgid-script application and Perl engine script; the status
# page shows each pool's queue_wait and site.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use JSON::PP ();

plan tests => 7, need { 'needs FCGI (libfcgi-perl)' => !system('perl -MFCGI -e1 2>/dev/null') };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/fcgid_vhost_timeout";
my ($port, $vport) = free_ports(2);
fresh_dir($dir);
mkdir "$dir/$_" for qw(fcgid eng);
chmod 0755, "$dir/fcgid", "$dir/eng";
write_file("$dir/fcgid/app.fcgi", <<'PL', 0755);
#!/usr/bin/perl
use FCGI;
my $req = FCGI::Request();
while ($req->Accept() >= 0) { print "Content-Type: text/plain\r\n\r\npid=$$\n" }
PL
write_file("$dir/eng/pid.pl", "#!/usr/bin/perl\nprint \"Content-Type: text/plain\\n\\npid=\$\$\\n\";\n", 0755);

my $conf = "$dir/httpd.conf";
write_file($conf, private_conf($dir, $port, [qw(alias)], <<"CONF"), 0644);
Timeout 60
Listen 127.0.0.1:$vport
Alias /fcgid/ $dir/fcgid/
<Directory $dir/fcgid>
    SetHandler fcgid-script
    Options +ExecCGI
</Directory>
Alias /eng/ $dir/eng/
<Directory $dir/eng>
    SetHandler cgiplus-script
    CGIplusEngine $vars->{top_dir}/lib/perl/cgiplus-engine-perl
    Options +ExecCGI
</Directory>
<Location /cgiplus-status>
    SetHandler cgiplus-status
</Location>
<VirtualHost 127.0.0.1:$vport>
    ServerName vhost.test
    Timeout 5
</VirtualHost>
CONF
ok t_cmp(private_start($conf, $port), 1, 'httpd starts');

for my $p ($port, $vport) {
    my ($code) = curl('--max-time', '30', "http://127.0.0.1:$p/fcgid/app.fcgi");
    my ($ecode) = curl('--max-time', '30', "http://127.0.0.1:$p/eng/pid.pl");
    ok t_cmp("$code $ecode", '200 200', "port $p: the fcgid-script application and the engine script answer");
}
my (undef, undef, $json) = curl('--max-time', '30', "http://127.0.0.1:$port/cgiplus-status?json");
my $st = eval { JSON::PP::decode_json($json) } // {};
my (@waits, @sites);
for my $pl (@{ $st->{pools} // [] }) {
    push @waits, $pl->{settings}{queue_wait} if $pl->{script} =~ m{/app\.fcgi$};
    push @sites, $pl->{site} if defined $pl->{site};
}
ok t_cmp(scalar(@waits), 2, 'two fcgid-script pools: one per server (their queue waits differ)');
ok t_cmp(join(' ', sort { $a <=> $b } @waits), '4000 59000',
         "each waits 1 s less than its own server's Timeout (5 s, 60 s)");
ok t_cmp(scalar(@sites), 2, 'two engine pools, one per site');
ok t_cmp(scalar(grep { /vhost\.test:/ } @sites) . ' ' . scalar(grep { /^127\.0\.0\.1:/ } @sites), '1 1',
         "each named for its own server (@sites)");
private_stop("$dir/httpd.pid");
