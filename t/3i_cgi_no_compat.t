# A mod_cgi configuration with only mod_cgiplus loaded and CGIplusCompat
# left off: nobody serves cgi-script, and httpd's default handler sends the
# script's source with a 200, logging nothing. That is httpd's way without
# mod_cgi, but after swapping the modules it went unnoticed (found with
# mailgraph's Debian example: Alias + ExecCGI + AddHandler cgi-script .cgi,
# and munin's SetHandler cgi-script). The module now says so (1392); with
# 'CGIplusCompat on' the script runs and nothing is said.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/pool/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir libexec);
use FreePort qw(free_port);
use AppTest qw(write_file curl);

plan tests => 6;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/cgi_no_compat";
my $port = free_port();
my $base = "http://127.0.0.1:$port";
fresh_dir($dir);
mkdir "$dir/app";
chmod 0755, "$dir/app";
write_file("$dir/app/graph.cgi", "#!/bin/sh\nprintf 'Content-Type: text/plain\\n\\nran\\n'\n", 0755);

my $lib = libexec();
# mailgraph's example configuration (Debian 12), its paths ours
my $site = <<"CONF";
LoadModule alias_module $lib/mod_alias.so
LoadModule mime_module $lib/mod_mime.so
LoadModule authz_host_module $lib/mod_authz_host.so
TypesConfig /etc/mime.types
Alias /mailgraph $dir/app
<Directory $dir/app>
    Options +FollowSymLinks +ExecCGI
    AddHandler cgi-script .cgi

    Require local

</Directory>
CONF

sub log_has {
    my ($re) = @_;
    open my $fh, '<', "$dir/error_log" or return 0;
    my $n = grep { /$re/ } <$fh>;
    return $n;
}

write_file("$dir/off.conf", private_conf($dir, $port, [], $site), 0644);
ok t_cmp(private_start("$dir/off.conf", $port), 1, 'only mod_cgiplus, CGIplusCompat off: httpd starts');
my ($code, undef, $body) = curl("$base/mailgraph/graph.cgi");
ok t_cmp($code == 200 && $body =~ /^#!\/bin\/sh/ ? 'source' : "$code $body", 'source',
         "httpd's default handler sends the script as it is (httpd's way without mod_cgi)");
private_stop("$dir/httpd.pid");
ok t_cmp(log_has(qr{CGIPLUS1392: \Q$dir\E/app/graph\.cgi is a cgi-script, but neither mod_cgi nor mod_cgid is loaded and CGIplusCompat is off}),
         1, 'and the error log says why, once for the request (1392)');

unlink "$dir/error_log";
write_file("$dir/on.conf", private_conf($dir, $port, [], "$site\nCGIplusCompat on\n"), 0644);
ok t_cmp(private_start("$dir/on.conf", $port), 1, 'with CGIplusCompat on');
($code, undef, $body) = curl("$base/mailgraph/graph.cgi");
ok t_cmp("$code $body", "200 ran\n", 'the same configuration runs the script');
private_stop("$dir/httpd.pid");
ok t_cmp(log_has(qr{CGIPLUS1392}), 0, 'and says nothing');
