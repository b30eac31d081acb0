# Consecutive requests meet the same worker process: its own request counter
# goes up by one each time and its pid stays the same.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);

my $n = 5;
plan tests => 2 * $n + 1;

my (@count, @pid);
for my $i (1 .. $n) {
    my $r = GET '/c/counter';
    ok t_cmp($r->code, 200, "request $i answers 200");
    my ($c, $p) = $r->content =~ /^count=(\d+) pid=(\d+)$/m;
    ok defined $c;
    push @count, $c // -1;
    push @pid, $p // -1;
}
my @want = map { $count[0] + $_ } 0 .. $n - 1;
my %pids = map { $_ => 1 } @pid;
ok t_cmp("@count / " . scalar(keys %pids), "@want / 1",
         'counter increments by one in a single worker process');
