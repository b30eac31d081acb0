# The response spool's settings (issue 20, hole 7): values out of range are
# refused with a sentence; the spool directory is made root's, mode 0730
# for httpd's Group (never httpd's User's: its scripts could chmod it), and
# httpd refuses to start on one that another user owns, that others may
# use, or that is a symbolic link (1153). Past
# CGIplusResponseSpoolMax the rest of the response waits for the client
# (1151) and still arrives whole. A private httpd with only mod_cgiplus.
use strict;
use lib "t/lib";
use FreePort qw(free_port);
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Select;
use IO::Socket::INET;
use Socket qw(PF_INET SOCK_STREAM SOL_SOCKET SO_RCVBUF inet_aton pack_sockaddr_in);
use POSIX ();
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_stop private_check fresh_dir);

plan tests => 15;
$SIG{PIPE} = 'IGNORE';

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/slowconf";
my $port = free_port();
my $docs = "$vars->{documentroot}/pool";
my $user_uid = $> == 0 ? (getpwnam($vars->{user}))[2] : $>;

sub conf {
    my ($extra) = @_;
    open my $fh, '>', "$dir/httpd.conf" or die "$dir/httpd.conf: $!";
    print $fh private_conf($dir, $port, ['alias'], <<"CONF" . $extra);
Alias /big.pl $docs/big.pl
<Location /big.pl>
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusMaxWorkers 1
</Location>
CONF
    close $fh;
    return "$dir/httpd.conf";
}
sub log_text { open my $fh, '<', "$dir/error_log" or return ''; local $/; return <$fh> }
# Starts httpd; 0 as soon as the log says why it did not start.
sub start {
    my ($conf) = @_;
    system($vars->{httpd}, '-f', $conf, '-k', 'start');
    for (1 .. 100) {
        return 1 if IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 1);
        return 0 if log_text() =~ /CGIPLUS1153/;
        sleep 0.1;
    }
    return 0;
}

fresh_dir($dir);
for my $bad (['CGIplusResponseBuffer 17M', qr/CGIplusResponseBuffer takes at most 16777216 bytes \(16M\), not '17M'/],
             ['CGIplusResponseBuffer lots', qr/CGIplusResponseBuffer takes a whole number of bytes/],
             ['CGIplusResponseSpoolMax 2048G', qr/CGIplusResponseSpoolMax takes at most \d+ bytes \(1T\)/],
             ['CGIplusResponseSpoolMax -1', qr/CGIplusResponseSpoolMax takes a whole number/],
             ["<VirtualHost 127.0.0.1:1>\nCGIplusResponseSpoolDir /tmp/x\n</VirtualHost>",
              qr/CGIplusResponseSpoolDir cannot occur within <VirtualHost> section/]) {
    my ($rc, $out) = private_check(conf($bad->[0]));
    ok t_cmp($rc != 0 && $out =~ $bad->[1] ? 1 : 0, 1, "refused: $bad->[0] ($out)");
}
my ($rc, $out) = private_check(conf("CGIplusResponseBuffer 0\nCGIplusResponseSpoolMax 1G\n"));
ok t_cmp($rc, 0, "CGIplusResponseBuffer 0 and CGIplusResponseSpoolMax 1G pass ($out)");

# The directory: another user's, open to others, a symbolic link.
my $spool = "$dir/spool";
for my $case (['mode 0755', sub { mkdir $spool, 0755; chmod 0755, $spool; chown $user_uid, -1, $spool },
               qr/must belong to root, group httpd's Group .* mode 0755/],
              ['a symbolic link', sub { mkdir "$dir/elsewhere", 0700; chown $user_uid, -1, "$dir/elsewhere";
                                        symlink "$dir/elsewhere", $spool },
               qr/cannot be opened as a directory/]) {
    my ($name, $make, $want) = @$case;
    fresh_dir($dir);
    $make->();
    # httpd -t (configtest before a graceful restart) refuses it too,
    # making and changing nothing (1330)
    my ($trc, $tout) = private_check(conf("CGIplusResponseSpoolDir $spool\n"));
    ok t_cmp($trc != 0 && $tout =~ /CGIPLUS1330: mod_cgiplus: the response spool directory \Q$spool\E \(CGIplusResponseSpoolDir\) $want/
             ? 1 : 0, 1, "httpd -t refuses a spool directory that is $name (1330)");
    my $started = start(conf("CGIplusResponseSpoolDir $spool\n"));
    private_stop("$dir/httpd.pid") if $started;
    ok t_cmp(!$started && log_text() =~ /CGIPLUS1153: mod_cgiplus: the response spool directory \Q$spool\E \(CGIplusResponseSpoolDir\) $want/
             ? 1 : 0, 1, "a spool directory that is $name: httpd does not start (1153)");
}

# Made when missing: 0730, root's, httpd's Group's; httpd's User (its
# scripts) cannot chmod it. A 4 MiB response to a slow client with a 1 MiB
# spool cap: 1151, then all of it once it reads.
fresh_dir($dir);
ok t_cmp(private_start(conf("CGIplusResponseSpoolDir $spool\nCGIplusResponseSpoolMax 1M\n"), $port),
         1, 'httpd starts, the spool directory missing');
my @st = stat $spool;
my $group_gid = $> == 0 ? getgrnam($vars->{group}) // (getpwnam($vars->{user}))[3] : 0;
ok t_cmp(@st ? sprintf('%04o %d %d', $st[2] & 07777, $st[4], $st[5]) : 'none',
         $> == 0 ? "0730 0 $group_gid" : sprintf('0700 %d %d', $>, $st[5]),
         'it was made mode 0730, root\'s, for httpd\'s Group');
if ($> == 0) {
    my $kid = open(my $rd, '-|') // die "fork: $!";
    if (!$kid) {
        $) = "$group_gid $group_gid";
        $( = $group_gid;
        $< = $> = $user_uid;
        print chmod(0, $spool) ? "changed\n" : "refused: $!\n";
        POSIX::_exit(0);
    }
    my $out = <$rd> // '';
    close $rd;
    chmod 0730, $spool;
    ok t_cmp($out, qr/^refused: Operation not permitted$/, "httpd's User cannot chmod it");
} else {
    ok t_cmp(-o $spool ? 1 : 0, 1, 'httpd not root: its own');
}
socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
setsockopt($s, SOL_SOCKET, SO_RCVBUF, pack('i', 4096));
connect($s, pack_sockaddr_in($port, inet_aton('127.0.0.1'))) or die "connect: $!";
syswrite $s, "GET /big.pl?size=4194304 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
my $t0 = time;
sleep 0.2 while time - $t0 < 10 && log_text() !~ /CGIPLUS1151/;
ok t_cmp(log_text() =~ /CGIPLUS1151: the response of \S+big\.pl for a slow client is past CGIplusResponseSpoolMax \(1048576 bytes\); the rest waits for the client, and the worker with it/
         ? 1 : 0, 1, 'past the cap: 1151');
my ($data, $sel) = ('', IO::Select->new($s));
while ($sel->can_read(10)) { last unless sysread $s, $data, 262144, length $data }
my $want = join '', map { sprintf('%010d', $_) . ('.' x 53) . "\n" } 0 .. 4194304 / 64 - 1;
my ($head, $body) = split /\r\n\r\n/, $data, 2;
ok t_cmp(($head // '') =~ m{^HTTP/1\.1 200} && ($body // '') eq $want ? 1 : 0, 1,
         'and the response arrives whole (' . length($body // '') . ' bytes)');
private_stop("$dir/httpd.pid");
