# A body the module streams (CGIplusBodyBuffer 0) must reach the script
# whatever way the request gets its worker. On a pool that grows slowly (2
# workers a second, up to 4) under 12 concurrent POSTs, requests go through
# the runner while it starts workers, and one may be granted a worker that
# frees up meanwhile (GRANT): the httpd child then writes the request to the
# worker itself. Every script must read the whole body, once.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/pool/lib';
use PoolTest qw(status pool_of);

plan tests => 3;

my $vars = Apache::Test::config()->{vars};
my $url = "http://127.0.0.1:$vars->{port}/pool/bodygrant/app.pl?sleep=0.2&body";
my $body = join '', map { chr(33 + $_ % 90) } 1 .. 3000;
my $sum = unpack('%32C*', $body);
my $file = "$vars->{t_logs}/body-grant.txt";
open my $fh, '>', $file or die "$file: $!";
print $fh $body;
close $fh;

my (@kids, @lines);
pipe my $rd, my $wr or die "pipe: $!";
for my $c (1 .. 12) {
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        close $rd;
        for (1 .. 4) {
            my $out = `curl -s -m 30 -H 'Expect:' --data-binary \@$file '$url'`;
            my ($l) = $out =~ /^(cl=.*)$/m;
            print $wr ($l // "none: $out") =~ s/\n/ /gr, "\n";
        }
        exit 0;
    }
    push @kids, $pid;
}
close $wr;
@lines = <$rd>;
chomp @lines;
waitpid $_, 0 for @kids;
my @bad = grep { $_ ne "cl=3000 got=3000 sum=$sum" } @lines;
ok t_cmp(scalar(@lines), 48, '48 POSTs answered');
ok t_cmp(scalar(@bad), 0, 'every script read the whole 3000-byte body')
    or print STDERR map { "# $_\n" } @bad[0 .. ($#bad < 5 ? $#bad : 5)];
# a request is counted as its worker is released, after its response
my $n = -1;
for (1 .. 30) {
    my $p = pool_of(status(), 'bodygrant');
    $n = $p ? $p->{counters}{requests} // -1 : -1;
    last if $n >= 48;
    select undef, undef, undef, 0.1;
}
ok t_cmp($n, 48, 'the status page counts 48 requests: each ran once');
