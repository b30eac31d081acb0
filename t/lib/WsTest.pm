package WsTest;
# A private httpd for the WebSocket tests (t/7x_ws_*.t): the MPM the test
# asks for, mod_ssl and mod_http2 (H2WebSockets on) on a second port, the
# examples and t/htdocs/ws under /c/, /py/, /pl/ and /t/, the status page;
# stopped by its own pid file. py() runs a Python part (t/lib/wstest.py
# imported, Debian's python3 with python3-websockets) and returns the JSON
# object it printed last.
use strict;
use warnings;
use Apache::Test ();
use JSON::PP ();
use IO::Socket::INET;
use Time::HiRes qw(sleep time);
use PrivateHttpd qw(libexec fresh_dir);
use FreePort qw(free_ports);
use Exporter 'import';
our @EXPORT_OK = qw(ws_start ws_stop ws_py ws_py_start ws_py_wait ws_log ws_graceful ws_status ws_counts ws_dir
                    ws_deploy_dir ws_deploy_pid);

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
our $PYTHON = '/usr/bin/python3';

# ws_start(name => 'x', mpm => 'event', timeout => 30, extra => '...'):
# ($port, $tls_port, $dir).
my %started; # name => pid file, stopped at exit if the test did not

END { PrivateHttpd::private_stop($_) for values %started }

sub ws_start {
    my %o = @_;
    my $dir = "$vars->{t_logs}/ws-$o{name}";
    # one a failed run of this test left behind is ours to stop
    PrivateHttpd::private_stop("$dir/httpd.pid") if -e "$dir/httpd.pid";
    my ($port, $tport) = free_ports(2);
    my $lib = libexec();
    my $mpm = $o{mpm} // 'event';
    my $timeout = $o{timeout} // 30;
    my $gen = "$vars->{t_conf}/generated/ssl";
    my $extra = $o{extra} // '';
    $extra =~ s/\@DOCROOT\@/$vars->{documentroot}/g;
    $extra =~ s/\@TOP\@/$top/g;
    fresh_dir($dir);
    open my $fh, '>', "$dir/httpd.conf" or die "$dir/httpd.conf: $!";
    print $fh <<"CONF";
ServerRoot $dir
PidFile $dir/httpd.pid
ErrorLog $dir/error_log
LogLevel info cgiplus:debug
Listen 127.0.0.1:$port
Listen 127.0.0.1:$tport
ServerName 127.0.0.1
DefaultRuntimeDir $dir
Timeout $timeout
LoadModule mpm_${mpm}_module $lib/mod_mpm_$mpm.so
LoadModule authz_core_module $lib/mod_authz_core.so
LoadModule alias_module $lib/mod_alias.so
LoadModule ssl_module $lib/mod_ssl.so
LoadModule socache_shmcb_module $lib/mod_socache_shmcb.so
LoadModule http2_module $lib/mod_http2.so
LoadModule cgiplus_module $top/mod_cgiplus/.libs/mod_cgiplus.so
CGIplusRunnerPath $top/runner/cgiplus-runner
CGIplusKillGrace 1s
CGIplusSpawnBackoff 200ms 1s
User $vars->{user}
Group $vars->{group}
Protocols h2 http/1.1
H2WebSockets on
<VirtualHost 127.0.0.1:$tport>
    SSLEngine on
    SSLCertificateFile $gen/server.crt
    SSLCertificateKeyFile $gen/server.key
</VirtualHost>
<Location /cgiplus-status>
    SetHandler cgiplus-status
</Location>
Alias /c/ $top/examples/c/
Alias /py/ $top/examples/python/
Alias /pl/ $top/examples/perl/
Alias /t/ $vars->{documentroot}/ws/
<Directory $top/examples>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
<Directory $vars->{documentroot}/ws>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
$extra
CONF
    close $fh;
    $started{$o{name}} = "$dir/httpd.pid";
    my $ok = PrivateHttpd::private_start("$dir/httpd.conf", $port);
    return $ok ? ($port, $tport, $dir) : ();
}

sub ws_stop {
    my ($name) = @_;
    PrivateHttpd::private_stop("$vars->{t_logs}/ws-$name/httpd.pid");
    delete $started{$name};
}

sub ws_dir { return "$vars->{t_logs}/ws-$_[0]" }

# A directory for the scripts a test deploys, beside ws_dir($name).
sub ws_deploy_dir {
    my $dep = ws_dir($_[0]) . '-deploy';
    mkdir $dep;
    chmod 0755, $dep;
    return $dep;
}

# t/htdocs/ws/pid.py with its tag and library path in the file, renamed
# into $dep as $as (pid.py unless named): a new file, as a deploy makes.
sub ws_deploy_pid {
    my ($dep, $tag, $as) = @_;
    open my $in, '<', "$vars->{documentroot}/ws/pid.py" or die $!;
    local $/;
    my $src = <$in>;
    $src =~ s/^tag = .*$/tag = "$tag"/m or die 'no tag line';
    $src =~ s{^LIB = .*$}{LIB = "$top/lib/python"}m or die 'no LIB line';
    open my $out, '>', "$dep/new.py" or die $!;
    print $out $src;
    close $out;
    chmod 0755, "$dep/new.py";
    rename "$dep/new.py", "$dep/" . ($as // 'pid.py') or die $!;
}

sub ws_graceful {
    my ($name) = @_;
    system($vars->{httpd}, '-f', "$vars->{t_logs}/ws-$name/httpd.conf", '-k', 'graceful');
}

sub ws_log {
    my ($name) = @_;
    local (@ARGV, $/) = ("$vars->{t_logs}/ws-$name/error_log");
    return <> // '';
}

# ws_py($code, @args): runs the Python part with sys.argv[1..]; its last
# JSON line, decoded (undef if none; the whole output is in $WsTest::OUT).
our $OUT = '';
sub ws_py { return ws_py_wait(ws_py_start(@_)) }

# ws_py in two halves, for scripts that run at once: the start returns a
# handle, the wait its JSON as ws_py does.
sub ws_py_start {
    my ($code, @args) = @_;
    local $ENV{PYTHONPATH} = "$top/t/lib";
    open my $ph, '-|', $PYTHON, '-c', "from wstest import *\n$code", @args
        or die "python3: $!";
    return $ph;
}

sub ws_py_wait {
    my ($ph) = @_;
    local $/;
    $OUT = <$ph> // '';
    close $ph;
    my ($last) = $OUT =~ /^(\{.*\})\s*\z/m;
    print STDERR "# python: $OUT" unless $last;
    return $last ? JSON::PP::decode_json($last) : undef;
}

# The runner's status as JSON.
sub ws_status {
    my ($port) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 10) or return undef;
    print $s "GET /cgiplus-status?json HTTP/1.0\r\nHost: x\r\n\r\n";
    local $/;
    my $r = <$s> // '';
    $r =~ s/\A.*?\r\n\r\n//s;
    return eval { JSON::PP::decode_json($r) };
}

# "accepted closed open" summed over the WebSocket pools of the status page:
# every connection closed once and none left is "N N 0".
sub ws_counts {
    my ($port) = @_;
    my $st = ws_status($port);
    my ($acc, $closed, $open) = (0, 0, 0);
    for my $p (@{ $st->{websocket}{pools} // [] }) {
        $acc += $p->{counters}{accepted};
        $closed += $p->{counters}{closed};
        $open += $p->{connections};
    }
    return "$acc $closed $open";
}

1;
