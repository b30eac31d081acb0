# A FastCGI request with a body on the direct path ends without a read on
# descriptor -1 (found by valgrind's "invalid file descriptor -1 in syscall
# read()" in a soak of httpd -X): the drain of what a CGIplus script left
# unread of its body reads the worker's stdin pipe, which a FastCGI worker's
# channel does not have (its body went on its socket). strace watches every
# thread of httpd's children while /fcgi/app (direct, t/conf/extra_fcgi)
# answers POSTs.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps', 't/htdocs/pool/lib';
use PoolTest qw(strace_on strace_off);
use AppTest qw(curl url);

plan tests => 4, need { 'needs strace' => system('command -v strace >/dev/null 2>&1') == 0 };

my $vars = Apache::Test::config()->{vars};
my $body = "$vars->{t_logs}/fcgi-drain-body";
open my $bf, '>', $body or die "$body: $!";
print $bf 'x' x 5000;
close $bf;

# every child knows the pool and has its workers' channels before the trace
for (1 .. 12) {
    curl('--data-binary', "\@$body", url('/fcgi/app'));
}

open my $pf, '<', "$vars->{t_logs}/httpd.pid" or die "httpd.pid: $!";
chomp(my $parent = <$pf>);
open $pf, '<', "$vars->{t_logs}/cgiplus-runner.pid" or die "runner pid: $!";
chomp(my $runner = <$pf>);
my @children;
for my $stat (glob('/proc/[0-9]*/stat')) {
    my ($pid) = $stat =~ m{/proc/(\d+)/stat$};
    open my $sf, '<', $stat or next;
    my ($ppid) = (<$sf> // '') =~ /^\d+ \(.*\) \S (\d+)/;
    push @children, $pid if ($ppid // 0) == $parent && $pid != $runner;
}
my $out = "$vars->{t_logs}/strace-fcgi-drain-$$.txt";
unlink $out;
my $st = strace_on(\@children, '-e', 'trace=read', '-o', $out);
my (%codes, $echoed);
for (1 .. 10) {
    my ($code, undef, $got) = curl('--data-binary', "\@$body", url('/fcgi/app'));
    $codes{$code}++;
    $echoed++ if $got =~ /^body_len=5000$/m;
}
strace_off($st);
open my $f, '<', $out or die "$out: $!";
my @lines = <$f>;
close $f;

ok t_cmp(join(',', map { "$_ x$codes{$_}" } sort keys %codes), '200 x10', 'ten POSTs to a FastCGI worker: 200');
ok t_cmp($echoed // 0, 10, 'each body reached the application');
ok t_cmp(scalar(grep { /\bread\(\d+,/ } @lines) > 0 ? 1 : 0, 1, 'the trace saw the children read');
my @bad = grep { /\bread\(-1,/ } @lines;
ok t_cmp(scalar(@bad), 0, 'and never read descriptor -1' . (@bad ? ": $bad[0]" : ''));
unlink $out, $body;
