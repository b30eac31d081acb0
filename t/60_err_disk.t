# The response spool when the disk fails it: a slow client's response that
# cannot be spooled waits for the client (and the worker with it), as
# without spooling, and nothing is lost. The spool directory
# (CGIplusResponseSpoolDir) on a tmpfs of 256 KiB the test mounts (so it
# runs as root, as the suite does): an 8 MiB response to a client that
# reads nothing for a while fills it (1152: the write failed); the
# directory made unusable for httpd's children (mode 0700, root's): no
# spool file (1150). Each time the client gets every byte, and the next
# request is served by the same worker. Then the script log
# (CGIplusScriptLog) on the full disk: a failed request is answered as
# ever, and the failed write is said (1101).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Select;
use Socket qw(PF_INET SOCK_STREAM SOL_SOCKET SO_RCVBUF inet_aton pack_sockaddr_in);
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_dir private_log private_wait_log
                    private_get resp_code resp_pid resp_body);
use FreePort qw(free_port);

plan tests => 1 + 2 * 4 + 3;
$SIG{PIPE} = 'IGNORE';

my $vars = Apache::Test::config()->{vars};
my $full = "$vars->{t_logs}/err-disk-full";
system('umount', $full) if -d $full && `findmnt -n -o TARGET '$full'` =~ /\S/;
mkdir $full;
my $mounted = system('mount', '-t', 'tmpfs', '-o', 'size=256k,mode=0755', 'cgiplus-full', $full) == 0;
END { system('umount', $full) if $mounted }
ok t_cmp($mounted ? 1 : 0, 1, "a tmpfs of 256 KiB mounted on $full");

my $dir = private_dir('err-disk');
my $pool = "$vars->{documentroot}/pool";
my $port = free_port();
open my $cf, '>', "$dir/httpd.conf" or die "httpd.conf: $!";
print $cf private_conf($dir, $port, ['alias'], <<"CONF");
LogLevel info cgiplus:info
CGIplusResponseSpoolDir $full/resp
CGIplusScriptLog $full/script.log
Alias /p/ $pool/
<Directory $pool>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusMaxWorkers 1
    CGIplusResponseBuffer 16K
</Directory>
CONF
close $cf;
{ open my $sl, '>', "$full/script.log" or die "script.log: $!"; }
chmod 0666, "$full/script.log";
private_start("$dir/httpd.conf", $port) or die "httpd did not start\n";

my $SIZE = 8 * 1024 * 1024;
# 64-byte lines: k in ten digits, 53 dots, a newline (big.pl)
my $want = join '', map { sprintf('%010d', $_) . ('.' x 53) . "\n" } 0 .. $SIZE / 64 - 1;


# A client with a small window that reads nothing for 3 s, then all.
sub slow_get {
    socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
    setsockopt($s, SOL_SOCKET, SO_RCVBUF, pack('i', 4096)) or die "SO_RCVBUF: $!";
    connect($s, pack_sockaddr_in($port, inet_aton('127.0.0.1'))) or die "connect: $!";
    syswrite $s, "GET /p/big.pl?size=$SIZE HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    sleep 3;
    my $data = '';
    my $sel = IO::Select->new($s);
    my $end = time + 30;
    while ($sel->can_read($end - time > 0 ? $end - time : 0)) {
        my $n = sysread $s, $data, 262144, length $data;
        last unless $n;
    }
    return (resp_code($data), resp_body($data));
}

my $worker = resp_pid(private_get($port, '/p/big.pl?size=64'));
for my $case (['full', 1152, qr{CGIPLUS1152: writing the response spool file of \S+/big\.pl in \Q$full\E/resp failed; the rest waits for the client}],
              ['unusable', 1150, qr{CGIPLUS1150: cannot create a response spool file in \Q$full\E/resp for \S+/big\.pl; the response waits for the client}]) {
    my ($what, $id, $re) = @$case;
    chmod 0700, "$full/resp" if $what eq 'unusable';
    my ($code, $body) = slow_get();
    ok t_cmp($code, 200, "spool $what: 200");
    ok t_cmp(length($body) == $SIZE && $body eq $want ? 'every byte' : 'got ' . length($body) . ' bytes',
             'every byte', "spool $what: the slow client gets every byte");
    ok t_cmp(private_wait_log($dir, $re), 1, "spool $what: logged ($id)");
    ok t_cmp(resp_pid(private_get($port, '/p/big.pl?size=64')), $worker,
             "spool $what: the same worker serves the next request");
}

# The disk full: a failed request is answered as ever (502: the worker dies
# before its response), the next one served, the failed write said.
{
    open my $fill, '>', "$full/filler" or die "filler: $!";
    1 while syswrite $fill, 'x' x 65536;
}
chmod 0755, "$full/resp";
ok t_cmp(resp_code(private_get($port, '/p/app.pl?die_early')), 502, 'script log on a full disk: a failed request is answered 502');
ok t_cmp(private_wait_log($dir, qr{\(28\)No space left on device: \[client [^]]+\] CGIPLUS1101: cannot write to the script log of \S+/app\.pl}), 1, 'and the failed write is said (1101)');
ok t_cmp(resp_code(private_get($port, '/p/app.pl')), 200, 'the next request is served');
unlink "$full/filler";
