# A PSGI application under cgiplus-psgi whose request forks. A child that
# exits leaves the worker as it was: every later request is answered by the
# same worker, with its own answer. A child that returns into the server's
# loop writes a response while the worker has no request: no client ever
# gets it; the runner's look at idle workers (CGIPLUS2025), or the next
# request that claims the worker (1130), finds it and stops the worker as
# broken, and a new worker serves from then on.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep);
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(write_file curl url);
use MainLog qw(log_offset log_wait);

plan tests => 12;

my $vars = Apache::Test::config()->{vars};
my $apps = "$vars->{documentroot}/apps";
write_file("$apps/forkapp.cgp", "#!$vars->{top_dir}/lib/perl/cgiplus-psgi\napp forkapp.psgi\n");
my $u = '/apps/forkapp.cgp';

sub ask {
    my ($q) = @_;
    my ($code, undef, $body) = curl(url("$u?$q"));
    my ($pid) = $body =~ /pid (\d+)$/;
    return ("$code $body", $pid // 0);
}

my ($got, $pid) = ask('first');
ok t_cmp($got, "200 answer to first pid $pid\n", 'the application answers');
($got) = ask('fork');
ok t_cmp($got, "200 answer to fork pid $pid\n", 'a request that forks a child that exits: its own answer');
sleep 1;    # the child has exited
for my $q (qw(a b c)) {
    ($got) = ask($q);
    ok t_cmp($got, "200 answer to $q pid $pid\n", "after the child's exit: request $q, its own answer, the same worker");
}

my $off = log_offset();
($got) = ask('forkret');
ok t_cmp($got, "200 answer to forkret pid $pid\n", 'a request whose child returns into the loop: its own answer');
sleep 1;    # the child has written its response by now
my @got = map { [ask($_)] } qw(d e f g);
for my $i (0 .. $#got) {
    my $q = (qw(d e f g))[$i];
    ok t_cmp($got[$i][0], qr/^200 answer to $q pid \d+\n\z/, "after the child's response: request $q, its own answer");
}
# found by the runner's look at idle workers (2025) or by the child that
# claims the worker (1130), whichever comes first
ok t_cmp(log_wait($off, qr/CGIPLUS2025: worker pid $pid of \Q$apps\E\/forkapp\.cgp wrote \d+ bytes while it was idle|CGIPLUS1130: \Q$apps\E\/forkapp\.cgp \(worker pid $pid\) wrote \d+ bytes while it had no request/) ? 1 : 0,
         1, 'the stray response is found and the worker stopped as broken (2025 or 1130)');
ok t_cmp(join(' ', map { $_->[1] == $pid ? 'old' : 'new' } @got), 'new new new new',
         'a new worker serves from then on');
