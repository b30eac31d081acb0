# A body the runner cannot write to its worker (a write error that is
# not the worker closing its stdin) fails its request (500), never
# reaches the script short: before, the runner discarded the rest, so a
# plain CGI run read end of file and answered on a short body its
# CONTENT_LENGTH said was longer, and a CGIplus worker waited for the
# rest until a timeout. gate.pl reads its body only once let: meanwhile
# the runner fills its stdin pipe and waits, and strace makes the
# runner's writes to that pipe alone (-P: its pipe:[inode]) fail with
# EIO. The worker is killed mid-body (2024), httpd says why (3671). A
# FastCGI worker (raw.py?gate=NAME, relayed, a pool of one): strace fails
# the runner's writes to its connection alone (-P: the runner's end,
# socket:[inode], the peer ss names of the one the worker accepted). Its
# request fails at once, 500, and the worker is killed (2903); before,
# the runner took it for one exiting, waited for a reap that came only
# when 2 s later it killed it as one that closed its stdout and did not
# exit (2015), and answered 502.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps', 't/htdocs/pool/lib';
use MainLog qw(log_offset log_since log_wait);
use PoolTest qw(strace_on strace_off runner_pid wait_for);
use AppTest qw(url);

plan tests => 2 * 8 + 9, need { 'needs strace and ss' => system('command -v strace >/dev/null 2>&1 && command -v ss >/dev/null 2>&1') == 0 };

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
    my $q = $path =~ /raw\.py$/ ? 'gate' : 'name';
    my $gate = "$vars->{t_logs}/gate-$name";
    open my $g, '>', $gate or die "$gate: $!";
    close $g;
    chmod 0666, $gate;
    my $cpid = open(my $c, '-|') // die "fork: $!";
    if (!$cpid) {
        my ($code, $got) = post("$path?$q=$name");
        print "$code\n$got";
        exit 0;
    }
    my $pid = wait_for(sub { open my $fh, '<', $gate or return 0; (<$fh> // '') =~ /^(\d+)$/ ? $1 : 0 }, 15);
    my $stdin = $pid ? ($path =~ /raw\.py$/ ? runner_end($pid) : readlink("/proc/$pid/fd/0") // '') : '';
    my $st = $stdin =~ /^(?:pipe|socket):\[\d+\]$/
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

# The runner's end of the connection FastCGI worker pid accepted (its
# descriptors past 0, its listening socket): socket:[inode], or ''.
sub runner_end {
    my ($pid) = @_;
    my %mine;
    for my $fd (glob "/proc/$pid/fd/*") {
        next if $fd =~ m{/0$};
        my $l = readlink($fd) // '';
        $mine{$1} = 1 if $l =~ /^socket:\[(\d+)\]$/;
    }
    for (`ss -xH state established`) {
        my @f = split;
        return "socket:[$f[-1]]" if @f >= 4 && $mine{$f[-3]};
    }
    return '';
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
# FastCGI: the worker serves (its pid), then a request of it is held at
# the gate until the runner's writes to its connection fail.
my $path = '/fcgiabr/raw.py';
# (gate=open: no such gate, it reads at once and says the body's length)
my ($code, $got) = post("$path?gate=open");
my ($before) = $got =~ /pid=(\d+)/;
ok t_cmp("$code " . ($got =~ /^body_len=(\d+) /m ? $1 : -1), "200 $size",
         'a FastCGI worker (relayed) takes the upload whole');
my $off = log_offset();
my ($pid, $conn);
($code, $got, $pid, $conn) = post_failing($path, 'fcgi');
ok t_cmp("$conn " . (($pid // 0) == ($before // -1) ? 'same' : 'other'), qr/^socket:\[\d+\] same$/,
         'the same worker held at the gate; the runner\'s end of its connection found');
ok t_cmp($code, 500, 'its body cannot be written: 500, not 502');
ok t_cmp($got =~ /body_len=/ ? 1 : 0, 0, 'not the application\'s answer to a short body');
my $re = qr{CGIPLUS2903: cannot write to FastCGI worker pid (\d+) of \S+raw\.py: Input/output error; request \d+ \(\Q$path\E\?gate=fcgi\) is answered 500, and the worker is killed};
ok t_cmp(log_wait($off, $re) && log_since($off) =~ $re && $1 == ($pid // 0) ? 1 : 0, 1,
         'the runner says so (2903), naming the worker');
ok t_cmp(log_since($off) =~ m{CGIPLUS3671: the runner could not pass the request body to \S+raw\.py: Input/output error; answering 500}
         ? 1 : 0, 1, 'and so does httpd (3671)');
ok t_cmp(($pid && wait_for(sub { !kill 0, $pid }, 10)) ? 1 : 0, 1, 'the worker is gone (killed)');
ok t_cmp(log_since($off) =~ /CGIPLUS(?:2015|2506)\b/ ? 1 : 0, 0,
         'not blamed for closing its stdout (no 2015), nor taken for a client that left (no 2506)');
($code, $got) = post("$path?gate=open");
my ($after) = $got =~ /pid=(\d+)/;
ok t_cmp("$code " . ($got =~ /^body_len=(\d+) /m ? $1 : -1) . ' ' . ($after && $after != ($pid // 0) ? 'new' : 'same'),
         "200 $size new", 'a new worker takes the same upload whole');
unlink $body;
