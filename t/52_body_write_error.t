# A body the runner cannot write to its worker (a write error that is
# not the worker closing its stdin) fails its request (500), never
# reaches the script short: before, the runner discarded the rest, so a
# plain CGI run read end of file and answered on a short body its
# CONTENT_LENGTH said was longer, and a CGIplus worker waited for the
# rest until a timeout. gate.pl reads its body only once let: meanwhile
# the runner fills its stdin pipe and waits, and strace makes the
# runner's writes to that pipe alone (-P: its pipe:[inode]) fail with
# EIO. The worker is killed mid-body (2024), httpd says why (3671).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps', 't/htdocs/pool/lib';
use MainLog qw(log_offset log_since log_wait);
use PoolTest qw(strace_on strace_off runner_pid wait_for);
use AppTest qw(url);

plan tests => 2 * 8, need { 'needs strace' => system('command -v strace >/dev/null 2>&1') == 0 };

my $vars = Apache::Test::config()->{vars};
my $size = 2 * 1024 * 1024;
my $body = "$vars->{t_logs}/body-write-error-body";
open my $bf, '>', $body or die "$body: $!";
print $bf join('', map { chr(65 + $_ % 26) } 0 .. 1023) x ($size / 1024);
close $bf;

# A chunked POST (relayed by the runner, never the direct path): its
# status and body.
sub post {
    my ($path) = @_;
    my $out = `curl -s -m 20 -H 'Expect:' -H 'Transfer-Encoding: chunked' --data-binary \@$body -w '\n%{http_code}' ${\ url($path)}`;
    return $out =~ /^(.*)\n(\d{3})\z/s ? ($2, $1) : (0, $out);
}

# The same, held at the gate until strace fails the runner's writes to
# the script's stdin: status, body, the script's pid and its stdin.
sub post_failing {
    my ($path, $name) = @_;
    my $gate = "$vars->{t_logs}/gate-$name";
    open my $g, '>', $gate or die "$gate: $!";
    close $g;
    chmod 0666, $gate;
    my $cpid = open(my $c, '-|') // die "fork: $!";
    if (!$cpid) {
        my ($code, $got) = post("$path?name=$name");
        print "$code\n$got";
        exit 0;
    }
    my $pid = wait_for(sub { open my $fh, '<', $gate or return 0; (<$fh> // '') =~ /^(\d+)$/ ? $1 : 0 }, 15);
    my $stdin = $pid ? readlink("/proc/$pid/fd/0") // '' : '';
    my $st = $stdin =~ /^pipe:\[\d+\]$/
             ? strace_on(runner_pid(), '-e', 'trace=write', '-P', $stdin, '-e', 'inject=write:error=EIO')
             : 0;
    unlink $gate;
    local $/;
    my $out = <$c> // '';
    close $c;
    strace_off($st) if $st;
    my ($code, $got) = split /\n/, $out, 2;
    return ($code, $got // '', $pid, $stdin);
}

for my $case (['/pool/bodywrite/gate.pl', 'a CGIplus worker', 'cgiplus'],
              ['/pool/cgimode/gate.pl', 'a plain CGI run', 'cgi']) {
    my ($path, $what, $name) = @$case;
    my $off = log_offset();
    my ($code, $got, $pid, $stdin) = post_failing($path, $name);
    ok t_cmp($stdin, qr/^pipe:\[\d+\]$/, "$what held at the gate, its stdin a pipe");
    ok t_cmp($code, 500, "$what: its body cannot be written: 500");
    ok t_cmp($got =~ /read=/ ? 1 : 0, 0, 'not the script\'s answer to a short body');
    my $re = qr{CGIPLUS2024: cannot pass the body of request \d+ \(\Q$path\E\?name=$name\) to worker pid (\d+) of \S+gate\.pl: Input/output error; answering 500 and killing the worker};
    ok t_cmp(log_wait($off, $re) && log_since($off) =~ $re && $1 == ($pid // 0) ? 1 : 0, 1,
             'the runner says so (2024), naming the script\'s pid');
    ok t_cmp(log_since($off) =~ m{CGIPLUS3671: the runner could not pass the request body to \S+gate\.pl: Input/output error; answering 500}
             ? 1 : 0, 1, 'and so does httpd (3671)');
    ok t_cmp(($pid && wait_for(sub { !kill 0, $pid }, 10)) ? 1 : 0, 1, 'the script is gone (killed)');
    ok t_cmp(log_since($off) =~ /CGIPLUS2506\b/ ? 1 : 0, 0, 'not taken for a client that left (no 2506)');
    ($code, $got) = post($path);
    ok t_cmp("$code " . ($got =~ /^read=(\d+) /m ? $1 : -1), "200 $size",
             'without the fault the same upload goes whole');
}
unlink $body;
