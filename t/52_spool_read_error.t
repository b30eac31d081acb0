# A body the runner cannot read back from its spool file fails its
# request (500), never reaches the script short: the script's
# CONTENT_LENGTH says the whole body, so a short stream is silent data
# loss. A chunked upload is counted first, past 1 MiB in the spool file
# (t/52_spool.t); strace makes every pread64 of the runner (only the spool
# reads with it) fail with EIO. A FastCGI worker (/fcgir/app, relayed) gets
# ABORT_REQUEST and its STDIN stream is never ended (2902); it serves the
# next request; the runner does not take it for one whose client left
# (no 2506). One whose application said Script-Control: no-abort (raw.py
# in a pool of its own, before it reads its body) gets no ABORT_REQUEST
# and would wait for the rest: it is stopped, and a new worker serves the
# next request. It reads its body only once the runner has its header
# (2076), so that the body is lost after; its response has started then
# (no-abort is a header): it is cut (httpd's 1072), never answered as
# complete. A CGIplus worker (slowread.pl) and a plain CGI run (the C
# echo example) are killed in the middle of their body (3670). httpd says
# why it answered 500 (3671).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps', 't/htdocs/pool/lib';
use MainLog qw(log_offset log_since log_wait);
use PoolTest qw(strace_on strace_off runner_pid wait_for);
use AppTest qw(curl url);

plan tests => 26, need { 'needs strace' => system('command -v strace >/dev/null 2>&1') == 0 };

my $vars = Apache::Test::config()->{vars};
my $size = 2 * 1024 * 1024;
my ($line, $rc);
my $body = "$vars->{t_logs}/spool-read-error-body";
open my $bf, '>', $body or die "$body: $!";
print $bf join('', map { chr(65 + $_ % 26) } 0 .. 1023) x ($size / 1024);
close $bf;

sub post_chunked {
    my ($path) = @_;
    return curl('-H', 'Expect:', '-H', 'Transfer-Encoding: chunked', '--data-binary', "\@$body",
                url($path));
}

# Without the fault: the scene passes the body whole.
my ($code, undef, $got) = post_chunked('/fcgir/app');
ok t_cmp("$code " . ($got =~ /^body_len=(\d+)$/m ? $1 : -1), "200 $size",
         'a chunked 2 MiB POST to a relayed FastCGI worker: 200, the body whole');

# Both pools have a worker before the trace. Not -f: a process the runner
# forks meanwhile would have its loader's pread64 fail; the spool is read
# by the runner's threads traced here.
($code, undef, $got) = curl('-H', 'Expect:', '--data-binary', 'z' x 10, url('/pool/body/slowread.pl?gap=0'));
ok t_cmp("$code " . ($got =~ /^read=(\d+) /m ? $1 : -1), '200 10', 'the CGIplus pool serves');
($code, undef, $got) = curl(url('/fcgisp/raw.py'));
my ($raw_pid) = $got =~ /^pid=(\d+)$/m;
ok t_cmp("$code " . ($raw_pid ? 'pid' : $got), '200 pid', 'the no-abort FastCGI application serves');
my $st = strace_on(runner_pid(), '-e', 'trace=pread64', '-e', 'inject=pread64:error=EIO');
my $off = log_offset();
($code, undef, $got) = post_chunked('/fcgir/app');
ok t_cmp($code, 500, 'its spool file unreadable: 500');
ok t_cmp($got =~ /body_len=/ ? 1 : 0, 0, 'not the application\'s answer to a short body');
ok t_cmp(log_wait($off, qr{CGIPLUS2902: cannot read the body of request \d+ \(/fcgir/app\) back from the spool for FastCGI worker pid \d+ of \S+: Input/output error; answering 500})
         ? 1 : 0, 1, 'the runner says so (2902)');
ok t_cmp(log_since($off) =~ m{CGIPLUS3671: the runner could not pass the request body to \S+fcgi_app: Input/output error; answering 500}
         ? 1 : 0, 1, 'and so does httpd (3671), not a protocol error (1067)');
ok t_cmp(log_since($off) =~ /CGIPLUS1067\b/ ? 1 : 0, 0, 'no 1067');

# A body held in memory alone is never read back: the worker serves it.
my $small = 'y' x 1000;
($code, undef, $got) = curl('-H', 'Expect:', '--data-binary', $small, url('/fcgir/app'));
ok t_cmp("$code " . ($got =~ /^body_len=(\d+)$/m ? $1 : -1), '200 1000',
         'the next request (a small body) on the FastCGI pool: 200, its body whole');
ok t_cmp(log_since($off) =~ m{CGIPLUS2506: request \d+ \(/fcgir/app\)} ? 1 : 0, 0,
         'the failed request is not taken for one whose client left (no 2506)');

# FastCGI with no-abort: no ABORT_REQUEST, so the worker is stopped.
$off = log_offset();
my $gate = "$vars->{t_logs}/gate-noabort";
open my $gf, '>', $gate or die "$gate: $!";
close $gf;
my $cpid = open(my $cf, '-|') // die "fork: $!";
if (!$cpid) {
    my $out = `curl -s -m 20 -H 'Expect:' -H 'Transfer-Encoding: chunked' --data-binary \@$body -w '\n%{http_code}' ${\ url('/fcgisp/raw.py?noabort')}`;
    print $? >> 8, "\n$out";
    exit 0;
}
log_wait($off, qr{CGIPLUS2076: worker pid \Q$raw_pid\E of \S+raw\.py: Script-Control no-abort});
unlink $gate;
{ local $/; ($rc, $got) = split /\n/, <$cf> // '', 2; }
close $cf;
$got //= '';
ok t_cmp("$rc " . ($got =~ /(\d{3})\z/ ? $1 : 0), qr/^(?:18|56) 200$/,
         'the no-abort application\'s body unreadable: its response (started) cut');
ok t_cmp($got =~ /body_len=/ ? 1 : 0, 0, 'not its answer to a short body');
ok t_cmp(log_wait($off, qr{CGIPLUS2902: cannot read the body of request \d+ \(/fcgisp/raw\.py\?noabort\) back from the spool for FastCGI worker pid \Q$raw_pid\E of \S+raw\.py: Input/output error; answering 500})
         ? 1 : 0, 1, 'the runner says so (2902), for the worker that served before');
ok t_cmp(log_wait($off, qr{CGIPLUS1072: script \S+raw\.py \(worker pid \Q$raw_pid\E\) ended with outcome bad-request after its response started; cutting the client connection})
         ? 1 : 0, 1, 'and httpd cuts the response (1072)');
ok t_cmp(($raw_pid && wait_for(sub { !kill 0, $raw_pid }, 10)) ? 1 : 0, 1, 'that worker is stopped');
($code, undef, $got) = curl(url('/fcgisp/raw.py'));
my ($new_pid) = $got =~ /^pid=(\d+)$/m;
ok t_cmp("$code " . ($new_pid && $new_pid != $raw_pid ? 'new' : $got), '200 new',
         'a new worker serves the next request');

# CGIplus: the worker reading the body is killed.
$off = log_offset();
($code, undef, $got) = post_chunked('/pool/body/slowread.pl?gap=0');
ok t_cmp($code, 500, 'a CGIplus worker\'s body unreadable from the spool: 500');
ok t_cmp($got =~ /read=/ ? 1 : 0, 0, 'not the script\'s answer to a short body');
$line = log_wait($off, qr{CGIPLUS3670: cannot read the body of request \d+ \(/pool/body/slowread\.pl\?gap=0\) back from the spool for worker pid \d+ of \S+: Input/output error; answering 500 and killing the worker});
ok t_cmp($line ? 1 : 0, 1, 'the runner says so (3670)');
my ($pid) = log_since($off) =~ /CGIPLUS3670: .*? for worker pid (\d+) /;
ok t_cmp(($pid && wait_for(sub { !kill 0, $pid }, 10)) ? 1 : 0, 1, 'and that worker is gone');
# A plain CGI run: its stdin would end (EOF) where the body was lost. The
# echo answers as it reads: its response started with the first MiB (from
# memory), so the failure cuts it (curl: 18, or 56) short of the body.
$off = log_offset();
my $out = `curl -s -m 20 -H 'Expect:' -H 'Transfer-Encoding: chunked' --data-binary \@$body -o /dev/null -w '%{http_code} %{size_download}' ${\ url('/cgi-c/echo')}`;
$rc = $? >> 8;
my ($cut) = $out =~ /^200 (\d+)$/;
ok t_cmp(($cut // $size) < $size && $rc != 0 ? 1 : 0, 1,
         "a plain CGI run's body unreadable: its echo cut short (curl $rc: $out)");
ok t_cmp(log_wait($off, qr{CGIPLUS3670: cannot read the body of request \d+ \(/cgi-c/echo\) back from the spool for worker pid \d+ of \S+: Input/output error; answering 500 and killing the worker})
         ? 1 : 0, 1, 'the runner says so (3670)');
strace_off($st);

($code, undef, $got) = post_chunked('/cgi-c/echo');
ok t_cmp("$code " . length($got), "200 $size", 'without the fault the CGI run echoes the upload whole');

($code, undef, $got) = post_chunked('/pool/body/slowread.pl?gap=0');
ok t_cmp("$code " . ($got =~ /^read=(\d+) /m ? $1 : -1), "200 $size",
         'without the fault the pool serves the same upload whole');
($code, undef, $got) = post_chunked('/fcgir/app');
ok t_cmp("$code " . ($got =~ /^body_len=(\d+)$/m ? $1 : -1), "200 $size",
         'and so does the FastCGI pool');
($code, undef, $got) = post_chunked('/fcgisp/raw.py?noabort');
ok t_cmp("$code " . ($got =~ /^body_len=(\d+) /m ? $1 : -1), "200 $size",
         'and the no-abort application');
unlink $body;
