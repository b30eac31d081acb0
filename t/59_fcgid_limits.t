# mod_fcgid's limits as admins write them, under mod_fcgid and under the
# fcgid-script drop-in, the same configuration text:
# - values past what mod_cgiplus can do (FcgidMaxRequestInMem 64 MiB, a
#   hosting guide's figure, over CGIplusBodyBuffer's 16 MiB;
#   FcgidMaxProcessesPerClass 10000; FcgidMaxProcesses 100000;
#   FcgidMaxRequestsPerProcess past 2^32) are taken by mod_fcgid; the
#   drop-in refused to start on them. They now count as its most.
# - FcgidMaxRequestLen 0: mod_fcgid refuses every request body (500: "exceeds
#   MaxRequestLen (0)"), an empty one passes. The drop-in took 0 as no limit
#   and ran the application. It now refuses the body (413, its answer for
#   a body past the limit) without running it.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use JSON::PP ();
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir libexec);
use FreePort qw(free_port);
use AppTest qw(write_file curl lines_of);

plan tests => 2 * 6 + 2,
    need { 'needs FCGI (libfcgi-perl)' => !system('perl -MFCGI -e1 2>/dev/null'),
           'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so' };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/fcgid_limits";
my $lib = libexec();

for my $peer ('mod_fcgid', 'mod_cgiplus') {
    my $port = free_port();
    my $base = "http://127.0.0.1:$port";
    fresh_dir($dir);
    mkdir "$dir/$_" for qw(web tmp);
    chmod 0755, "$dir/web";
    chmod 0777, "$dir/tmp";
    # the application notes each request it runs, and what body it read
    write_file("$dir/web/app.fcgi", <<"PL", 0755);
#!/usr/bin/perl
use FCGI;
my \$req = FCGI::Request();
while (\$req->Accept() >= 0) {
    my \$body = '';
    while (read(STDIN, my \$buf, 65536)) { \$body .= \$buf }
    open my \$fh, '>>', '$dir/tmp/ledger';
    print \$fh "\$ENV{SERVER_NAME} \$ENV{REQUEST_METHOD} " . length(\$body) . "\\n";
    close \$fh;
    print "Content-Type: text/plain\\r\\n\\r\\nlen=" . length(\$body) . "\\n";
}
PL
    my $load = $peer eq 'mod_fcgid' ? "LoadModule fcgid_module $lib/mod_fcgid.so\n" : '';
    my $status = $peer eq 'mod_cgiplus' ? "<Location /status>\n    SetHandler cgiplus-status\n</Location>" : '';
    my $conf = "$dir/httpd.conf";
    write_file($conf, private_conf($dir, $port, [qw(mime)], <<"CONF"), 0644);
$load
TypesConfig /etc/mime.types
FcgidIPCDir $dir/ipc
FcgidMaxRequestInMem 67108864
FcgidMaxRequestLen 1073741824
FcgidMaxProcessesPerClass 10000
FcgidMaxProcesses 100000
FcgidMaxRequestsPerProcess 99999999999
AddHandler fcgid-script .fcgi
<Directory $dir/web>
    Options +ExecCGI
    Require all granted
</Directory>
<VirtualHost 127.0.0.1:$port>
    ServerName big.test
    DocumentRoot $dir/web
    $status
</VirtualHost>
<VirtualHost 127.0.0.1:$port>
    ServerName nobody.test
    DocumentRoot $dir/web
    FcgidMaxRequestLen 0
</VirtualHost>
CONF
    ok t_cmp(private_start($conf, $port), 1,
             "$peer: starts on FcgidMaxRequestInMem 64M, FcgidMaxProcessesPerClass 10000, "
             . 'FcgidMaxProcesses 100000, FcgidMaxRequestsPerProcess 99999999999');

    write_file("$dir/tmp/big", 'x' x 1_000_000, 0644);
    my ($code, undef, $body) = curl('-H', 'Host: big.test', '--data-binary', "\@$dir/tmp/big",
                                    "$base/app.fcgi");
    ok t_cmp("$code $body", "200 len=1000000\n", "$peer: a 1 MB body reaches the application whole");

    ($code, undef, $body) = curl('-H', 'Host: nobody.test', "$base/app.fcgi");
    ok t_cmp("$code $body", "200 len=0\n", "$peer: FcgidMaxRequestLen 0: a GET is served");
    ($code, undef, $body) = curl('-H', 'Host: nobody.test', '-X', 'POST', '-H', 'Content-Length: 0',
                                 "$base/app.fcgi");
    ok t_cmp("$code $body", "200 len=0\n", "$peer: FcgidMaxRequestLen 0: an empty POST is served");
    my ($c1) = curl('-H', 'Host: nobody.test', '--data-binary', 'a=b', "$base/app.fcgi");
    my ($c2) = curl('-H', 'Host: nobody.test', '-H', 'Transfer-Encoding: chunked',
                    '--data-binary', 'a=b', "$base/app.fcgi");
    # mod_fcgid says 500 where the drop-in says 413 (docs/cgi-compat.md)
    my $refused = $peer eq 'mod_fcgid' ? '500 500' : '413 413';
    ok t_cmp("$c1 $c2", $refused, "$peer: FcgidMaxRequestLen 0: a body of 3 bytes is refused, "
             . 'by Content-Length and chunked');
    ok t_cmp(join(',', lines_of("$dir/tmp/ledger")),
             'big.test POST 1000000,nobody.test GET 0,nobody.test POST 0',
             "$peer: the application never ran the refused requests");

    if ($peer eq 'mod_cgiplus') {
        # the values past mod_cgiplus's most are its most
        my $st = eval { JSON::PP::decode_json((curl('-H', 'Host: big.test', "$base/status?json"))[2]) } // {};
        my ($pool) = grep { ($_->{script} // '') eq "$dir/web/app.fcgi" } @{ $st->{pools} // [] };
        ok t_cmp($pool ? "$pool->{settings}{max_workers} $pool->{settings}{max_requests}" : 'no pool',
                 '4096 4294967295',
                 'FcgidMaxProcessesPerClass 10000 and FcgidMaxRequestsPerProcess 99999999999: the pool\'s most');
        my $n = ($st->{runner} // {})->{max_workers_total} // 'none';
        ok t_cmp($n, 65536, 'FcgidMaxProcesses 100000: the runner\'s most, 65536');
    }
    private_stop("$dir/httpd.pid");
}
