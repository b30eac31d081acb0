# A request goes to the runner in one writev: BEGIN, PARAMS and the empty
# STDIN|END of a GET leave the httpd child in a single system call. Watched
# with strace on the real httpd children. Through the runner (CGIplusDirect
# off): a direct request writes to its worker instead (t/53).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);
use Time::HiRes qw(sleep);
use lib 't/htdocs/pool/lib';
use PoolTest qw(strace_on strace_off);

plan tests => 4;

my $vars = Apache::Test::config()->{vars};
my $out = "$vars->{t_logs}/strace-writev.txt";
unlink $out;

# Warm up: every child has its runner connection, so no HELLO is written.
GET('/direct/off/hello') for 1 .. 20;

open my $pf, '<', "$vars->{t_logs}/httpd.pid" or die "pid file: $!";
chomp(my $parent = <$pf>);
my (@pids, %proc);
for my $pid (grep { /^\d+$/ } map { (split ' ')[0] } `ps --ppid $parent -o pid=,comm=`) {
    next if `cat /proc/$pid/comm` =~ /cgiplus/;    # the runner is a child too
    push @pids, $pid;
    # strace names the thread; fds belong to the process
    $proc{$_} = $pid for map { m{/(\d+)$} ? $1 : () } glob("/proc/$pid/task/*");
}
my $st = strace_on(\@pids, '-e', 'trace=write,writev,sendmsg,sendto', '-e', 'signal=none',
                   '-s', '8', '-o', $out);
my $n = 5;
my $ok = 0;
for (1 .. $n) {
    $ok++ if GET('/direct/off/hello')->content eq "Hello from CGIplus\n";
}
sleep 0.5;
strace_off($st);

ok t_cmp($ok, $n, "$n requests answered while traced");
open my $fh, '<', $out or die "$out: $!";
my @calls = <$fh>;
# The runner connections: the descriptors a BEGIN frame ("CP", version 1,
# type 3) was written to.
sub key { my ($l) = @_; $l =~ /^(\d+)\s+(?:writev|write|sendmsg|sendto)\((\d+),/ ? ($proc{$1} // $1) . ":$2" : '' }
my %fd;
for (@calls) {
    $fd{key($_)}++ if /"CP\\1\\3/;
}
# A child that had no runner connection yet opens one first: its HELLO
# ("CP", 1, type 1) is connection set-up, not part of a request.
my @to_runner = grep { my $k = key($_); $k ne '' && $fd{$k} && !/"CP\\1\\1/ } @calls;
ok t_cmp(scalar(@to_runner), $n, 'one system call to the runner per request');
ok t_cmp(scalar(grep { /^\s*(?:\d+\s+)?writev\(/ } @to_runner), $n, 'and it is a writev');
ok t_cmp(scalar(grep { /"CP\\1\\3/ } @to_runner), $n, 'each starts with BEGIN');
