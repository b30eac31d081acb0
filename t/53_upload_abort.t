# A client that leaves in the middle of an upload past CGIplusBodyBuffer
# (relayed: the worker already reads it). The persistent worker is blocked
# reading a body that will never come; the runner gave it 5 s to reach its
# sentinel before killing it (2014), and a one-worker pool answered nothing
# meanwhile (mod_cgid's script gets end of file at once). Now a worker
# that took every byte it was given gets 0.3 s; one that has bytes left
# unread (it is not reading) still gets the 5 s, and a script that answers
# without reading serves on, its worker kept. CGIplus script and the perl
# and python engines, one worker each, each twice.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use Time::HiRes qw(time sleep);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop private_dir private_log);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);

my @reading = (['native/lib.pl', 'CGIplus script'], ['eperl/body.pl', 'perl engine'],
               ['epy/body.py', 'python engine']);

plan tests => 1 + 2 * @reading * 2 + 2 * 2 + 1;

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $dir = private_dir('uploadabort');
my ($port) = free_ports(1);
my $d = "$dir/s";
mkdir $d;
chmod 0755, $d;

# Each answers "len=N pid=P" after reading its body to the end (noread.pl:
# without reading it).
write_file("$d/lib.pl", <<"PL", 0755);
#!/usr/bin/perl
use lib '$top/lib/perl';
use CGIplus;
binmode STDIN;
while (CGIplus::accept()) {
    my \$b = do { local \$/; <STDIN> } // '';
    print "Content-Type: text/plain\\n\\nlen=", length(\$b), " pid=\$\$";
    CGIplus::finish();
}
PL
write_file("$d/noread.pl", <<"PL", 0755);
#!/usr/bin/perl
use lib '$top/lib/perl';
use CGIplus;
while (CGIplus::accept()) {
    print "Content-Type: text/plain\\n\\nnoread pid=\$\$";
    CGIplus::finish();
}
PL
write_file("$d/body.pl", <<'PL', 0755);
#!/usr/bin/perl
binmode STDIN;
my $b = do { local $/; <STDIN> } // '';
print "Content-Type: text/plain\n\nlen=", length($b), " pid=$$";
PL
write_file("$d/body.py", <<'PY', 0755);
#!/usr/bin/python3
import os, sys
b = sys.stdin.buffer.read()
sys.stdout.write("Content-Type: text/plain\n\nlen=%d pid=%d" % (len(b), os.getpid()))
PY

write_file("$dir/httpd.conf", private_conf($dir, $port, [qw(alias mime)], <<"CONF"), 0644);
TypesConfig /etc/mime.types
LogLevel info cgiplus:debug
AliasMatch ^/[a-z]+/(.*)\$ $d/\$1
<Directory $d>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusMaxWorkers 1
</Directory>
<Location /native/>
    CGIplusMode cgiplus
</Location>
<Location /eperl/>
    CGIplusEngine $top/lib/perl/cgiplus-engine-perl
</Location>
<Location /epy/>
    CGIplusEngine $top/lib/python/cgiplus-engine-python
</Location>
CONF
ok t_cmp(private_start("$dir/httpd.conf", $port), 1, 'a private httpd with mod_cgiplus');

# Sends a POST of 2 MB that stops after 400 KB (past CGIplusBodyBuffer: the
# worker has the request and reads), then leaves.
sub abandon {
    my ($path) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 10) or die "connect: $!";
    print $s "POST /$path HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2000000\r\n"
           . "Content-Type: application/octet-stream\r\n\r\n";
    print $s 'x' x 65536 for 1 .. 6;
    sleep 0.5;
    close $s;
}

sub timed_post {
    my ($path) = @_;
    my $t0 = time;
    my ($code, undef, $body) = curl('--data-binary', 'abc', "http://127.0.0.1:$port/$path");
    return ($code, $body, time - $t0);
}

for my $k (@reading) {
    my ($path, $what) = @$k;
    curl("http://127.0.0.1:$port/$path"); # its worker started and warm
    for my $n (1, 2) {
        abandon($path);
        my ($code, $body, $took) = timed_post($path);
        ok t_cmp("$code $body", qr/^200 len=3 pid=\d+$/, "$what, #$n: the next request is served");
        ok t_cmp($took < 2 ? 1 : 0, 1, sprintf("$what, #$n: without waiting out the 5 s grace "
                                               . "(%.2f s)", $took));
    }
}

# Not reading: its stdin still holds what it was given, the grace is the
# long one, and the script (which answered at once) keeps its worker.
my (undef, $first) = timed_post('native/noread.pl');
my ($pid0) = $first =~ /pid=(\d+)/;
for my $n (1, 2) {
    abandon('native/noread.pl');
    my ($code, $body, $took) = timed_post('native/noread.pl');
    ok t_cmp("$code $body", "200 noread pid=" . ($pid0 // '?'),
             "a script that does not read its body, #$n: served by the same worker");
    ok t_cmp($took < 2 ? 1 : 0, 1, sprintf("#$n: at once (%.2f s)", $took));
}

my $log = private_log($dir);
my $killed = () = $log =~ /CGIPLUS2014: worker pid \d+ of \S+(?:lib\.pl|cgiplus-engine-\w+) still waits/g;
ok t_cmp($killed, 2 * @reading, 'each reading worker left waiting for its body is killed (2014)');

private_stop("$dir/httpd.pid");
