# Request bodies stream to the runner: a 50 MiB chunked upload to a
# persistent script goes through while every httpd child's resident memory
# stays flat (sampled from /proc before, during and after). Chunked bodies,
# LimitRequestBody (413, before and in the middle of a body), a body over
# HTTP/2, and the per-child pool of runner connections (no connect per
# request).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp t_start_error_log_watch t_finish_error_log_watch);
use Apache::TestRequest ();
use Digest::MD5;
use File::Temp qw(tempfile);
use LWP::UserAgent;
use POSIX qw(WNOHANG);
use Time::HiRes qw(sleep time);

plan tests => 6 + 8 + 3 + 3 + 2;

my $cfg = Apache::Test::config();
my $vars = $cfg->{vars};
my $h1 = 'http://' . Apache::TestRequest::hostport();
my $h2c = "http://$vars->{servername}:" . $cfg->port('cgiplus_h2c');

# ---- 50 MiB, chunked, persistent script; RSS of the httpd children ----
sub httpd_children {
    open my $fh, '<', $vars->{t_pid_file} or die "pid file: $!";
    my $parent = <$fh> + 0;
    my @kids;
    for my $stat (glob '/proc/[0-9]*/stat') {
        open my $s, '<', $stat or next;
        my $line = <$s> // next;
        my ($pid, $comm, $ppid) = $line =~ /^(\d+) \((.*)\) \S (\d+)/ or next;
        push @kids, $pid if $ppid == $parent && $comm =~ /apach/;
    }
    return @kids;
}
sub cpu_ticks {
    my ($pid) = @_;
    open my $fh, '<', "/proc/$pid/stat" or return 0;
    my $l = <$fh> // return 0;
    my @f = split ' ', ($l =~ s/^.*\) //r);
    return $f[11] + $f[12];             # utime + stime
}
sub rss_kb {
    my ($pid) = @_;
    open my $fh, '<', "/proc/$pid/status" or return undef;
    while (my $l = <$fh>) { return $1 if $l =~ /^VmRSS:\s+(\d+) kB/ }
    return undef;
}

my $block = join '', map { chr } 0 .. 255;
$block x= 256;                          # 64 KiB
my $blocks = 800;                       # 50 MiB
my $md5 = Digest::MD5->new;
$md5->add($block) for 1 .. $blocks;
my $want = sprintf 'len=%d md5=%s', length($block) * $blocks, $md5->hexdigest;

# warm up: every child has served a request and holds its pool
my $ua = LWP::UserAgent->new(timeout => 30);
$ua->get("$h1/cgi-plus/count.pl") for 1 .. 6;
my @kids = httpd_children();
my %before = map { $_ => rss_kb($_) } @kids;
my %cpu = map { $_ => cpu_ticks($_) } @kids;
my (undef, $out) = tempfile(UNLINK => 1);
my $t0 = time;
my $child = fork // die "fork: $!";
if (!$child) {
    open my $curl, '|-', 'curl', '-s', '-H', 'Transfer-Encoding: chunked', '-H', 'Expect:',
        '--data-binary', '@-', '-o', $out, "$h1/cgi-plus/count.pl" or exit 1;
    print $curl $block for 1 .. $blocks;
    close $curl;
    exit($? ? 1 : 0);
}
my ($samples, $growth) = (0, 0);
while (waitpid($child, WNOHANG) == 0) {
    # a child the MPM starts meanwhile may take the upload: counted from
    # when it is first seen (all of its CPU)
    for my $pid (grep { !exists $before{$_} } httpd_children()) {
        $before{$pid} = rss_kb($pid) // next;
        $cpu{$pid} = 0;
        push @kids, $pid;
    }
    for my $pid (@kids) {
        my $now = rss_kb($pid) // next;
        my $g = $now - $before{$pid};
        $growth = $g if $g > $growth;
    }
    $samples++;
    sleep 0.02;
}
my $status = $?;
my $secs = time - $t0;
for my $pid (@kids) {
    my $now = rss_kb($pid) // next;
    $growth = $now - $before{$pid} if $now - $before{$pid} > $growth;
}
# the child that did the work: the one that used the most CPU meanwhile
my ($server) = sort { (cpu_ticks($b) - $cpu{$b}) <=> (cpu_ticks($a) - $cpu{$a}) } @kids;
my $server_cpu = $server ? cpu_ticks($server) - $cpu{$server} : 0;
my $server_rss = $server ? (rss_kb($server) // 0) : 0;
my $answer = do { local (@ARGV, $/) = ($out); <> } // '';
ok t_cmp($status, 0, 'curl uploaded 50 MiB chunked');
ok t_cmp($answer =~ /^(len=\d+ md5=\w+)/ ? $1 : $answer, $want,
         'the script read all 50 MiB, byte-exact');
ok t_cmp($server_cpu > 0 ? 1 : 0, 1, "found the serving httpd child (pid "
         . ($server // '?') . ", $server_cpu ticks, RSS $server_rss kB)");
ok t_cmp($samples >= 5 ? 1 : 0, 1, "sampled memory during the upload ($samples samples, "
         . sprintf('%.1f', $secs) . ' s)');
ok t_cmp($growth < 16 * 1024 ? 1 : 0, 1, "httpd child RSS grew at most $growth kB (< 16 MiB)");
my $r = $ua->get("$h1/cgi-plus/count.pl");
ok t_cmp($r->content, qr/^len=0 md5=d41d8cd98f00b204e9800998ecf8427e/,
         'the same worker serves an empty body next');

# ---- chunked bodies and LimitRequestBody (100000 under /cgi-limit/) ----
sub curl_post {
    my ($url, $len, @opt) = @_;
    my ($fh, $file) = tempfile(UNLINK => 1);
    print $fh 'z' x $len;
    close $fh;
    open my $c, '-|', 'curl', '-s', '-H', 'Expect:', @opt, '--data-binary', "\@$file",
        '-w', '\n%{http_code}', $url or die "curl: $!";
    my $res = do { local $/; <$c> } // '';
    close $c;
    my ($body, $code) = $res =~ /^(.*)\n(\d+)$/s;
    return ($code // 0, $body // '');
}
my $zmd5 = sub { Digest::MD5::md5_hex('z' x shift) };
for my $m ('cgi-plain', 'cgi-plus') {
    my ($code, $body) = curl_post("$h1/$m/count.pl", 70000, '-H', 'Transfer-Encoding: chunked');
    ok t_cmp("$code $body", qr/^200 len=70000 md5=${\ $zmd5->(70000)}/,
             "$m: a chunked body of 70000 bytes");
}
my ($code, $body) = curl_post("$h1/cgi-limit/count.pl", 50000, '-H', 'Transfer-Encoding: chunked');
ok t_cmp($code, 200, 'under LimitRequestBody (chunked): 200');
($code) = curl_post("$h1/cgi-limit/count.pl", 200000);
ok t_cmp($code, 413, 'Content-Length over LimitRequestBody: 413');
t_start_error_log_watch();
($code) = curl_post("$h1/cgi-limit/count.pl", 300000, '-H', 'Transfer-Encoding: chunked');
ok t_cmp($code, 413, 'a chunked body passing LimitRequestBody midway: 413');
my $log = join '', t_finish_error_log_watch();
ok t_cmp($log, qr/CGIPLUS1041: reading the request body for \S+count\.pl failed/,
         'logged: the body failed while it streamed');
($code, $body) = curl_post("$h1/cgi-limit/count.pl", 10);
ok t_cmp("$code $body", qr/^200 len=10 /, 'the next request is fine');
($code) = curl_post("$h1/cgi-limit/count.pl", 100001, '-H', 'Transfer-Encoding: chunked');
ok t_cmp($code, 413, 'one byte over, chunked: 413');

# ---- a body over HTTP/2 (h2c) ----
($code, $body) = curl_post("$h2c/cgi-plus/count.pl", 150000, '--http2-prior-knowledge');
ok t_cmp($code, 200, 'POST over h2c: 200');
ok t_cmp($body, qr/^len=150000 md5=${\ $zmd5->(150000)}/, 'POST over h2c: body intact');
# curl reports 000 when the server stops an upload with RST_STREAM after
# its answer (as httpd does for 413); nghttp shows the answer itself.
my ($zfh, $zfile) = tempfile(UNLINK => 1);
print $zfh 'z' x 200000;
close $zfh;
my $ng = `nghttp -v -d $zfile '$h2c/cgi-limit/count.pl' 2>&1`;
ok t_cmp($ng =~ /recv \(stream_id=\d+\) :status: (\d+)/ ? $1 : 'none', 413,
         'over LimitRequestBody on h2c: 413');

# ---- the pool: one keep-alive client, 20 requests, at most one connect ----
my $all = do { local (@ARGV, $/) = ("$vars->{t_logs}/error_log"); <> };
my $ever = () = $all =~ /CGIPLUS1026: opened a connection to the runner/g;
ok t_cmp($ever > 0 ? 1 : 0, 1, "connects are logged ($ever so far in this server's life)");
t_start_error_log_watch();
my $ka = LWP::UserAgent->new(keep_alive => 1, timeout => 20);
my $ok = 0;
for (1 .. 20) {
    $ok++ if $ka->get("$h1/cgi-plus/perl.pl")->content eq "perl cgi\n";
}
$log = join '', t_finish_error_log_watch();
my $opens = () = $log =~ /CGIPLUS1026: opened a connection to the runner/g;
ok t_cmp($ok, 20, '20 requests served');
ok t_cmp($opens <= 1 ? 1 : 0, 1, "runner connections opened for them: $opens (reused)");

# ---- new client connections each time: at most one connect per child ----
t_start_error_log_watch();
for (1 .. 20) {
    LWP::UserAgent->new(keep_alive => 0, timeout => 20)->get("$h1/cgi-plus/perl.pl");
}
$log = join '', t_finish_error_log_watch();
$opens = () = $log =~ /CGIPLUS1026: /g;
my $nkids = () = httpd_children();
ok t_cmp($opens <= $nkids ? 1 : 0, 1, "20 client connections: $opens runner connects (<= $nkids children)");
ok t_cmp($opens < 20 ? 1 : 0, 1, 'not one per request');
