# The runner's body spool (issue 10, hole 9): a chunked body is counted
# before its script gets it, past 1 MiB in a file. The file is in the spool
# directory (CGIplusSpoolDir / spool_dir; default DefaultRuntimeDir/
# cgiplus-spool, made 0700), never /tmp, and has its own cap (spool_max):
# a body that needs more ends too-large (413), logged 2201 (and 1066 by
# httpd for one it relays). One whose file
# cannot be made gets 503 with Retry-After (2001, 1061).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use IO::Select;
use IO::Socket::INET;
use Time::HiRes qw(sleep);
use lib 't/htdocs/pool/lib';
use PoolTest qw(runner_pid wait_for wire_connect wire_frames wire_send standalone_runner);

plan tests => 20;

my $vars = Apache::Test::config()->{vars};
my $spool = "$vars->{t_logs}/cgiplus-spool";

# ---- the runner httpd starts: DefaultRuntimeDir/cgiplus-spool, 0700 ----
my @st = stat $spool;
ok t_cmp(@st && -d _ ? sprintf('%o %d', $st[2] & 07777, $st[4]) : 'missing', '700 0',
         "the spool directory is DefaultRuntimeDir/cgiplus-spool, 0700, the runner's (root)");
open my $rc, '<', "$vars->{t_logs}/cgiplus-runner.conf" or die;
my $rconf = do { local $/; <$rc> };
ok t_cmp($rconf =~ /^spool_max 62914560$/m ? 1 : 0, 1, 'CGIplusSpoolMax 60M reaches the runner');

# A chunked upload held open after 3 MiB: the runner is counting it, and
# its spool file is an unlinked file in the spool directory.
my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $vars->{port}) or die;
$sock->autoflush(1);
my $chunk = 'x' x (3 * 1024 * 1024);
print $sock "POST /cgi-plus/count.pl HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    . "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    . sprintf("%x\r\n", length $chunk) . $chunk . "\r\n";
my $rp = runner_pid();
sub spool_files {
    my @in = grep { m{\Q$spool\E/} } map { readlink($_) // '' } glob("/proc/$rp/fd/*");
    # (the tree itself may be checked out under /tmp: its own files are not spool)
    my @tmp = grep { m{^/tmp/} && !m{^\Q$vars->{top_dir}\E/} } map { readlink($_) // '' } glob("/proc/$rp/fd/*");
    return (\@in, \@tmp);
}
my $files = wait_for(sub { my ($in) = spool_files(); @$in ? $in : undef }, 10);
ok t_cmp($files && @$files ? $files->[0] : '', qr{^\Q$spool\E/.* \(deleted\)$},
         'the body spills to an unlinked file in the spool directory');
my (undef, $tmp) = spool_files();
ok t_cmp(scalar(@$tmp), 0, 'and nothing under /tmp');
print $sock "0\r\n\r\n";
my $resp = do { local $/; <$sock> } // '';
ok t_cmp($resp =~ m{^HTTP/1\.1 200} && $resp =~ /len=(\d+)/ ? $1 : $resp, length $chunk,
         'the script gets the whole body');

# Past CGIplusSpoolMax (60M) through httpd: 413, said by the runner (2201)
# and by httpd (1066); the upload is written until the answer comes.
{
    my $errlog = "$vars->{t_logs}/error_log";
    my $off = -s $errlog;
    my $up = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $vars->{port}) or die;
    $up->blocking(0);
    local $SIG{PIPE} = 'IGNORE';
    my $mib = 'y' x (1024 * 1024);
    my $out = "POST /cgi-plus/count.pl HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        . "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    my $sel = IO::Select->new($up);
    my ($chunks, $until) = (0, time + 60);
    while (time < $until) {
        if (!length $out && $chunks < 62) {
            $out = sprintf("%x\r\n", length $mib) . $mib . "\r\n";
            $out .= "0\r\n\r\n" if ++$chunks == 62;
        }
        last if !length $out || $sel->can_read(0);  # all sent, or the answer came first
        next unless $sel->can_write(1);
        my $n = syswrite $up, $out;
        last if !defined $n && !$!{EAGAIN};         # closed
        substr($out, 0, $n) = '' if $n;
    }
    $up->blocking(1);
    my $answer = '';
    while ($sel->can_read(30)) {
        my $n = sysread $up, $answer, 65536, length $answer;
        last unless $n;
    }
    ok t_cmp($answer =~ m{^HTTP/1\.1 (\d+)} ? $1 : $answer, 413, 'a chunked body past CGIplusSpoolMax (60M): 413');
    open my $lf, '<', $errlog or die;
    seek $lf, $off, 0;
    my $log = do { local $/; <$lf> };
    ok t_cmp($log, qr{CGIPLUS2201: request \d+ \(/cgi-plus/count\.pl\): its body needs more than spool_max \(62914560 bytes\)(?s:.*)CGIPLUS1066: the request body for \S+count\.pl is over the runner's limit},
             'said by the runner (2201), then by httpd (1066)');
}

# ---- the spool cannot be made: 503 with Retry-After, and the log says why ----
# The spool directory replaced by a file for one request: the runner cannot
# create the body's file (2001, ENOTDIR) and answers overloaded with that
# errno, which the child gives the client as 503 and logs with the reason
# (1061). Put back at once.
{
    my $errlog = "$vars->{t_logs}/error_log";
    my $off = -s $errlog;
    rename $spool, "$spool.away" or die "rename $spool: $!";
    open my $fh, '>', $spool or die "$spool: $!";
    close $fh;
    my $r2 = eval { # whatever happens, the directory is put back below
        my $s2 = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $vars->{port})
            or die "connect: $!";
        $s2->autoflush(1);
        print $s2 "POST /cgi-plus/count.pl HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            . "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            . sprintf("%x\r\n", length $chunk) . $chunk . "\r\n0\r\n\r\n";
        local $/;
        <$s2>;
    } // "no answer: $@";
    unlink $spool;
    rename "$spool.away", $spool or die "rename back $spool: $!";
    my ($head) = split /\r\n\r\n/, $r2, 2;
    ok t_cmp(($head // '') =~ m{^HTTP/1\.1 503} && $head =~ /^Retry-After: \d+\r?$/mi ? 1 : 0, 1,
             'a body the runner cannot spool gets 503 with Retry-After')
        or print STDERR "# ", substr($r2, 0, 300), "\n";
    open my $lf, '<', $errlog or die;
    seek $lf, $off, 0;
    my $text = do { local $/; <$lf> } // '';
    ok t_cmp($text, qr/CGIPLUS2001: cannot create a body spool file: Not a directory/,
             'the runner logs why it could not (2001)');
    ok t_cmp($text, qr{CGIPLUS1061: \S*/cgi/count\.pl: the runner could not take it \(Not a directory\); answering 503},
             'the child names the script and the errno (1061)');
}

# ---- the cap, on a runner of its own: spool_max 1M ----
my $dir = "$vars->{t_logs}/spooltest";
remove_tree($dir);
make_path($dir);
sub start { return standalone_runner($dir, @_) }
sub log_of { open my $fh, '<', "$dir/$_[0].log" or return ''; local $/; return <$fh> }
my $script = "$vars->{documentroot}/cgi/count.pl";
my $runner = start('cap', "socket $dir/r.sock\nuser nobody\nspool_max 1M\n");
ok t_cmp(wait_for(sub { -S "$dir/r.sock" }, 5) ? 1 : 0, 1, 'a runner with spool_max 1M');
my @sd = stat "$dir/cgiplus-spool";
ok t_cmp(@sd ? sprintf('%o', $sd[2] & 07777) : 'missing', '700',
         'its spool directory defaults to cgiplus-spool beside its socket, made 0700');

sub chunked_request {
    my ($s, $id, $bytes) = @_;
    my $kv = '';
    my @kv = (script => $script, uri => '/spool', mode => 'cgiplus');
    while (my ($k, $v) = splice @kv, 0, 2) { $kv .= pack('nN', length $k, length $v) . $k . $v }
    my $pv = '';
    my @pv = (REQUEST_METHOD => 'POST', SCRIPT_NAME => '/spool');
    while (my ($k, $v) = splice @pv, 0, 2) { $pv .= pack('nN', length $k, length $v) . $k . $v }
    wire_send($s, 3, 0, $id, $kv);
    wire_send($s, 4, 1, $id, $pv); # no CONTENT_LENGTH: the runner counts the body
    local $SIG{PIPE} = 'IGNORE';
    my $frame = 'b' x 65536;
    for (my $left = $bytes; $left > 0; $left -= 65536) {
        my $n = $left < 65536 ? $left : 65536;
        wire_send($s, 5, $left <= 65536 ? 1 : 0, $id, substr($frame, 0, $n));
    }
}
my $s = wire_connect("$dir/r.sock");
chunked_request($s, 1, 1800 * 1024);
my @f = wire_frames($s, 100, 10);
ok t_cmp(@f ? $f[-1]{outcome} : -1, 0, 'a chunked body of 1.8 MiB (0.8 MiB in the file) is served');
ok t_cmp(join('', map { $_->{payload} } grep { $_->{type} == 6 } @f), qr/len=1843200/,
         'byte count intact (len=1843200)');
chunked_request($s, 2, 3 * 1024 * 1024);
@f = wire_frames($s, 100, 10);
ok t_cmp(@f ? $f[-1]{outcome} : -1, 6, 'a chunked body of 3 MiB (2 MiB in the file) ends too-large (413)');
ok t_cmp(log_of('cap'), qr/CGIPLUS2201: request 2 \(\/spool\): its body needs more than spool_max \(1048576 bytes\)/,
         'logged (2201)');
close $s;
kill 'TERM', $runner;
waitpid $runner, 0;

# A spool directory whose path leaves no room for a FastCGI worker's socket
# name (108 bytes in all): the worker cannot start, said (2009), and its
# request ends spawn-failed (503).
my $long = "$dir/" . ('d' x (100 - length "$dir/"));
mkdir $long, 0700 or die "$long: $!";
$runner = start('long', "socket $dir/l.sock\nuser nobody\nspool_dir $long\n");
wait_for(sub { -S "$dir/l.sock" }, 5);
$s = wire_connect("$dir/l.sock");
wire_send($s, 3, 0, 1, pack('nN', 6, length "$vars->{top_dir}/t/src/fcgi_app") . 'script' . "$vars->{top_dir}/t/src/fcgi_app"
                       . pack('nN', 4, 7) . 'mode' . 'fastcgi' . pack('nN', 3, 5) . 'uri' . '/fcgi');
wire_send($s, 4, 1, 1, pack('nN', 14, 3) . 'REQUEST_METHOD' . 'GET' . pack('nN', 14, 1) . 'CONTENT_LENGTH' . '0');
wire_send($s, 5, 1, 1, '');
@f = wire_frames($s, 100, 10);
ok t_cmp(@f ? $f[-1]{outcome} : -1, 4, 'a FastCGI worker whose socket name would be too long: spawn-failed');
ok t_cmp(log_of('long'), qr{CGIPLUS2009: cannot start a FastCGI worker for \S+/fcgi_app: File name too long},
         'logged (2009)');
close $s;
kill 'TERM', $runner;
waitpid $runner, 0;

# A spool directory others may use is refused at start.
make_path("$dir/open");
chmod 0777, "$dir/open";
my $bad = start('open', "socket $dir/o.sock\nspool_dir $dir/open\n");
waitpid $bad, 0;
ok t_cmp(($? >> 8) . ' ' . (log_of('open') =~ /spool_dir \S+ must be a directory of the runner's user that nobody else may use/ ? 1 : 0),
         '2 1', 'a spool directory others may write is refused at start');
$bad = start('bigmax', "socket $dir/o.sock\nspool_max lots\n");
waitpid $bad, 0;
ok t_cmp(($? >> 8) . ' ' . (log_of('bigmax') =~ /spool_max wants a number of bytes/ ? 1 : 0),
         '2 1', 'a bad spool_max is refused');
