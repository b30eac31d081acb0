# kill -9 of the runner: httpd's parent starts a new one and the next
# request succeeds.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);
use Time::HiRes qw(sleep time);
use IO::Socket::INET;

plan tests => 12;

my $vars = Apache::Test::config()->{vars};
my $pidfile = "$vars->{t_logs}/cgiplus-runner.pid";

my $r = GET '/c/hello';
ok t_cmp($r->code, 200, 'a request before the kill');

sub read_pid {
    open my $fh, '<', $pidfile or return 0;
    my $p = <$fh> // '';
    return $p =~ /^(\d+)/ ? $1 : 0;
}
my $old = read_pid();
ok $old > 1 && kill(0, $old);
# A FastCGI worker: its socket name in the spool directory outlives a
# runner killed with it, unless the next runner sweeps it.
my $spool = "$vars->{t_logs}/cgiplus-spool";
sub names_of { my ($pid) = @_; opendir my $d, $spool or return 0;
               return scalar grep { /^fcgi-$pid-\d+\.sock$/ } readdir $d }
# One keep-alive connection, so that one httpd child serves its requests:
# its relayed request leaves an idle runner connection in that child.
my $ka = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$vars->{port}", Timeout => 20) or die "connect: $!";
sub ka_get {
    my ($path) = @_;
    print $ka "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    my $buf = '';
    local $SIG{ALRM} = sub { die "timeout\n" };
    alarm 20;
    my $done = sub {
        my ($head, $rest) = split /\r\n\r\n/, $buf, 2;
        return 0 unless defined $rest;
        return length($rest) >= $1 if $head =~ /^Content-Length: (\d+)/mi;
        return $rest =~ /(?:^|\r\n)0\r\n\r\n\z/;
    };
    eval { sysread($ka, $buf, 65536, length $buf) or last until $done->() };
    alarm 0;
    return ($buf =~ m{^HTTP/1\.1 (\d+)})[0] // 0;
}
ok t_cmp(ka_get('/fcgir/app'), 200, 'a relayed request before the kill');
ok t_cmp(names_of($old) > 0 ? 1 : 0, 1, 'the FastCGI worker has a socket name in the spool dir');
my $at = -s "$vars->{t_logs}/error_log";
kill 'KILL', $old;
# Dead, its sockets closed (a zombie until httpd reaps it): a request
# written while it is still dying may have reached it and is never sent
# again (t/51_no_rerun.t), which is not what this test is about.
my $until = time + 5;
sleep 0.01 while time < $until && (`cat /proc/$old/stat 2>/dev/null` =~ /^\d+ \(.*\) [^Z]/);

# The very next request must succeed: the module waits for the new runner.
$r = GET '/c/hello';
ok t_cmp($r->code, 200, 'the first request after kill -9 succeeds');
ok t_cmp($r->content, "Hello from CGIplus\n", 'and has the right body');

# httpd starts the new runner within a second or so; a request may not have
# needed it (an idle worker of the old one served it on the direct path).
my $new = 0;
for (1 .. 100) {
    $new = read_pid();
    last if $new > 1 && $new != $old && kill(0, $new);
    sleep 0.1;
}
ok $new > 1 && $new != $old && kill(0, $new);
ok t_cmp(names_of($old), 0, 'the new runner removed the killed runner\'s socket names');
sub main_log { local (@ARGV, $/) = "$vars->{t_logs}/error_log"; return <> // '' }
ok t_cmp(main_log(), qr/CGIPLUS2970: removed \d+ FastCGI socket names? an earlier runner \(pid $old\) left in \Q$spool\E/,
         '... and said so (2970)');
# the children take the new runner's table for the direct path (debug)
my $table = 0;
for (1 .. 20) {
    GET '/c/hello';
    last if ($table = main_log() =~ /CGIPLUS1703: direct path: got the table of runner pid $new\b/);
    sleep 0.1;
}
ok t_cmp($table ? 1 : 0, 1, 'the children map the new runner\'s table (1703, debug)');
# The child that held a connection to the killed runner drops it unused
# (1023: at this request, or at an earlier one that child took) and serves
# the relayed request on a new one.
ok t_cmp(ka_get('/fcgir/app'), 200, 'a relayed request on the same client connection after the kill');
ok t_cmp(substr(main_log(), $at), qr/CGIPLUS1023: dropping an idle runner connection the runner closed/,
         'its child dropped the connection the killed runner had closed (1023, debug)');
close $ka;
