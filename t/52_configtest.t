# httpd -t warns about settings that contradict each other, naming the
# directive, its file and line: CGIplusMinIdle above CGIplusMaxWorkers or
# CGIplusMaxWorkersTotal, CGIplusMaxWorkers above CGIplusMaxWorkersTotal,
# CGIplusTimeoutNoProgress or CGIplusQueueWait not below httpd's Timeout
# (the virtual host's own Timeout counts). The configuration still passes.
# Values out of range are refused (CGIplusBodyBuffer, CGIplusBodyMinRate).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);

plan tests => 14;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/configtest";
remove_tree($dir);
make_path($dir);
my $libexec = `$vars->{apxs} -q LIBEXECDIR`;
chomp $libexec;

sub configtest {
    my ($body) = @_;
    my $conf = "$dir/httpd.conf";
    open my $fh, '>', $conf or die "$conf: $!";
    print $fh <<"CONF";
ServerRoot $dir
ServerName 127.0.0.1
Listen 127.0.0.1:$vars->{port}
PidFile $dir/httpd.pid
ErrorLog $dir/error_log
DefaultRuntimeDir $dir
<IfModule !mpm_event_module>
<IfModule !mpm_prefork_module>
<IfModule !mpm_worker_module>
LoadModule mpm_event_module $libexec/mod_mpm_event.so
</IfModule>
</IfModule>
</IfModule>
LoadModule cgiplus_module $vars->{top_dir}/mod_cgiplus/.libs/mod_cgiplus.so
CGIplusRunnerPath $vars->{top_dir}/runner/cgiplus-runner
$body
CONF
    close $fh;
    my $out = `$vars->{httpd} -t -f $conf 2>&1`;
    return ($? >> 8, $out);
}

my ($rc, $out) = configtest(<<'CONF');
Timeout 300
CGIplusMaxWorkersTotal 8
<Directory /srv>
    CGIplusMaxWorkers 4
    CGIplusMinIdle 6
</Directory>
<Location /big>
    CGIplusMaxWorkers 16
</Location>
CGIplusTimeoutNoProgress 600s
<VirtualHost 127.0.0.1:1>
    Timeout 20
    <Location /q>
        CGIplusQueueWait 30s
    </Location>
</VirtualHost>
<Location /warm>
    CGIplusMinIdle 9
    CGIplusMaxWorkers 12
</Location>
CONF
my $f = "$dir/httpd.conf";
# The line of the directive matching re in the written file.
sub at {
    my ($re) = @_;
    open my $fh, '<', $f or die;
    while (<$fh>) { return "$f:$." if /$re/ }
    die "no line matches $re\n";
}
ok t_cmp($rc, 0, 'the configuration still passes httpd -t');
ok t_cmp($out, qr/Syntax OK/, 'Syntax OK');
ok t_cmp($out, qr/\[cgiplus:warn\] .*CGIPLUS1611: \Q${\at(qr{MinIdle 6})}\E: CGIplusMinIdle 6 is more than CGIplusMaxWorkers 4 \(\Q${\at(qr{MaxWorkers 4})}\E\)/,
         'CGIplusMinIdle above the CGIplusMaxWorkers in force: both lines named');
ok t_cmp($out, qr/CGIPLUS1611: \Q${\at(qr{MaxWorkers 16})}\E: CGIplusMaxWorkers 16 is more than CGIplusMaxWorkersTotal 8/,
         'CGIplusMaxWorkers above CGIplusMaxWorkersTotal');
ok t_cmp($out, qr/CGIPLUS1611: \Q${\at(qr{MinIdle 9})}\E: CGIplusMinIdle 9 is more than CGIplusMaxWorkersTotal 8/,
         'CGIplusMinIdle above CGIplusMaxWorkersTotal');
ok t_cmp($out, qr/CGIPLUS1611: \Q${\at(qr{NoProgress 600s})}\E: CGIplusTimeoutNoProgress 600s is not below httpd's Timeout \(300 s in the main server\)/,
         'CGIplusTimeoutNoProgress above Timeout');
ok t_cmp($out, qr/CGIPLUS1611: \Q${\at(qr{QueueWait 30s})}\E: CGIplusQueueWait 30s is not below httpd's Timeout \(20 s in this virtual host\)/,
         "CGIplusQueueWait above the virtual host's Timeout");
my $n = () = $out =~ /CGIPLUS1611/g;
# MinIdle 6, MaxWorkers 16 and 12, MinIdle 9, NoProgress (inherited by
# every section), QueueWait
ok t_cmp($n, 6, 'one warning per directive line, however many sections inherit it');

($rc, $out) = configtest(<<'CONF');
Timeout 60
CGIplusMaxWorkersTotal 64
<Directory /srv>
    CGIplusMaxWorkers 8
    CGIplusMinIdle 2
    CGIplusTimeoutNoProgress 30s
    CGIplusQueueWait 10s
</Directory>
CONF
ok t_cmp($rc, 0, 'a consistent configuration passes');
ok t_cmp($out =~ /CGIPLUS1611/ ? 1 : 0, 0, 'without warnings');

# Every value is checked: the body directives (hole 5).
for my $bad ('CGIplusBodyBuffer 17M', 'CGIplusBodyBuffer -1', 'CGIplusBodyMinRate 2G') {
    ($rc, $out) = configtest("$bad\n");
    ok t_cmp($rc != 0 && $out =~ /\Q${\(split ' ', $bad)[0]}\E takes/ ? 1 : 0, 1, "'$bad' is refused");
}
($rc, $out) = configtest("CGIplusBodyBuffer 1M\nCGIplusBodyMinRate 0\n");
ok t_cmp($rc, 0, 'CGIplusBodyBuffer 1M and CGIplusBodyMinRate 0 pass');
