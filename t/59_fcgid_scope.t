# mod_fcgid's directives are the pool settings of fcgid-script requests
# only (docs/cgi-compat.md, "mod_fcgid"). A host that keeps its panel's
# server-wide Fcgid* lines (FcgidMaxProcessesPerClass 1 here) and serves
# another directory natively (SetHandler cgiplus-script, CGIplusMode
# fastcgi, CGIplusMaxWorkers 3) got the Fcgid* numbers in that native pool
# too: it ran one worker, not 3, and a second request waited for the first
# (then 503). Now the native pool has its own settings: a second request
# runs while the first is held, and fcgid-script requests still get
# FcgidMaxProcessesPerClass.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir libexec);
use FreePort qw(free_port);
use AppTest qw(write_file curl);
use HeldGet qw(held_get held_answer);
use Time::HiRes qw(sleep);

plan tests => 5, need { 'needs FCGI (libfcgi-perl)' => !system('perl -MFCGI -e1 2>/dev/null') };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/fcgid_scope";
my $port = free_port();
my $base = "http://127.0.0.1:$port";
fresh_dir($dir);
mkdir "$dir/$_" for qw(native fcgid tmp);
chmod 0755, "$dir/native", "$dir/fcgid";
chmod 0777, "$dir/tmp";

# ?hold: marks that it runs, then waits (60 s at most) for the release file
my $app = <<"PL";
#!/usr/bin/perl
use FCGI;
my \$req = FCGI::Request();
while (\$req->Accept() >= 0) {
    my \$q = \$ENV{QUERY_STRING} // '';
    if (\$q =~ /^hold-(\\w+)\$/) {
        open my \$fh, '>', "$dir/tmp/held-\$1"; close \$fh;
        for (1 .. 600) { last if -e "$dir/tmp/release"; select undef, undef, undef, 0.1 }
    }
    print "Content-Type: text/plain\\r\\n\\r\\npid=\$\$ q=\$q\\n";
}
PL
write_file("$dir/native/app.fcgi", $app, 0755);
write_file("$dir/fcgid/app.fcgi", $app, 0755);

my $conf = "$dir/httpd.conf";
write_file($conf, private_conf($dir, $port, [qw(alias)], <<"CONF"), 0644);
FcgidMaxProcessesPerClass 1
Alias /native/ $dir/native/
<Directory $dir/native>
    SetHandler cgiplus-script
    CGIplusMode fastcgi
    CGIplusMaxWorkers 3
    Options +ExecCGI
</Directory>
Alias /fcgid/ $dir/fcgid/
<Directory $dir/fcgid>
    SetHandler fcgid-script
    Options +ExecCGI
    CGIplusQueueWait 2s
</Directory>
CONF
ok t_cmp(private_start($conf, $port), 1, 'httpd starts');

my $held = held_get("$base/native/app.fcgi?hold-a", "$dir/tmp/held-a");
my ($code, undef, $body) = curl('--max-time', '30', "$base/native/app.fcgi?second");
ok t_cmp("$code $body", qr/^200 pid=\d+ q=second$/,
         'native scope: a second request runs while the first is held (CGIplusMaxWorkers 3, '
         . 'not the server\'s FcgidMaxProcessesPerClass 1)');
write_file("$dir/tmp/release", '', 0644);
ok t_cmp(held_answer($held), qr/^200 pid=\d+ q=hold-a$/, 'and the held one ends');

unlink "$dir/tmp/release";
$held = held_get("$base/fcgid/app.fcgi?hold-b", "$dir/tmp/held-b");
($code) = curl('--max-time', '30', "$base/fcgid/app.fcgi?second");
ok t_cmp($code, 503, 'fcgid-script scope: FcgidMaxProcessesPerClass 1 holds (a second request '
         . 'waits, then 503 past its CGIplusQueueWait)');
write_file("$dir/tmp/release", '', 0644);
ok t_cmp(held_answer($held), qr/^200 pid=\d+ q=hold-b$/, 'and the held one ends');
private_stop("$dir/httpd.pid");
