# A new CGIplus worker gets only its first request's "!" line until it has
# read it (docs/PROTOCOL.md). A plain CGI program put under CGIplusMode
# cgiplus reads end of file on stdin at once, answers and exits; the runner
# then runs its request as plain CGI (2080). Under load the program can be
# done before the runner, still busy after fork(), writes that line: the
# write fails (EPIPE), and the worker was taken as broken (2019, the
# request failed; t/3g_cgi_stdin_eof.t saw a 500 so once in CI). Here the
# runner's return from fork() is held back 300 ms (strace inject), so the
# program has always ended first: the request must still run as plain CGI.
# A program that closes descriptor 3 and runs on is stopped (2916): 502.
# A FastCGI program that dies at start is gone before the runner could
# write its request: a failed start all the same, so the second one begins
# the crash-loop backoff and the third request gets 503 at once (it was
# taken as a worker that read its request and crashed in it, no backoff:
# t/59_fcgi_workers.t saw that once in CI).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);
use lib 't/lib', 't/htdocs/pool/lib';
use MainLog qw(log_offset log_since log_wait);
use PoolTest qw(strace_on strace_off runner_pid);

plan tests => 8, need { 'needs strace' => system('command -v strace >/dev/null 2>&1') == 0 };

# -f: the runner forks a pool's processes from a thread of the pool's,
# made at its first spawn (runner_domain.c)
my $st = strace_on(runner_pid(), '-f', '-e', 'trace=clone,clone3,fork,vfork',
                   map { ('-e', "inject=$_:delay_exit=300000") } qw(clone clone3 fork vfork));
my $off = log_offset();

my $r = GET('/firstgone/cat.sh?q=1');
ok t_cmp($r->code . ' ' . $r->content, "200 query=q=1 body=\n",
         'a plain CGI program that ended before its first line was written: run as plain CGI');
ok t_cmp(log_since($off) =~ m{CGIPLUS2080: \S+/dropin/cat\.sh does not speak CGIplus} ? 1 : 0, 1,
         'and said so (2080)');
ok t_cmp(log_since($off) =~ /CGIPLUS2019\b/ ? 1 : 0, 0, 'not taken as a worker that does not read CGIPLUSIN (2019)');

$off = log_offset();
$r = GET('/firstgone/closes3.sh');
ok t_cmp($r->code, 502, 'a new worker that closed descriptor 3 and runs on: its request fails (502)');
ok t_cmp(log_wait($off, qr{CGIPLUS2916: worker pid \d+ of \S+/dropin/closes3\.sh closed CGIPLUSIN}) ? 1 : 0, 1,
         'and it is stopped (2916)');

$off = log_offset();
my @r = map { GET('/fcgigone/dies.sh') } 1 .. 3;
ok t_cmp(join(' ', map { $_->code } @r[0, 1]), '502 502',
         'a FastCGI program that dies at start, gone before its request was written: 502 twice');
ok t_cmp($r[2]->code . ' ' . ($r[2]->header('Retry-After') // 'none'), qr/^503 \d+$/,
         'then the crash-loop backoff: 503 with Retry-After at once');
ok t_cmp(log_since($off) =~ m{CGIPLUS2066: \S+/fcgi/dies\.sh: 2 workers in a row ended before serving} ? 1 : 0,
         1, 'two failed starts in a row (2066)');

strace_off($st);
