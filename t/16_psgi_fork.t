# A PSGI application under cgiplus-psgi, and a WSGI one under cgiplus-wsgi,
# whose request forks. A child that exits leaves the worker as it was: every
# later request is answered by the same worker, with its own answer. A child
# that returns into the server's loop with a response of its own: no client
# ever gets it. cgiplus-wsgi closes its private response descriptor in the
# worker's children, so that child has nowhere to write and the worker
# serves on; Plack::Handler::CGIplus has no such hook, so the child writes
# while the worker has no request: the runner's look at idle workers
# (CGIPLUS2025), or the next request that claims the worker (1130), finds
# it and stops the worker as broken, and a new worker serves.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep);
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(write_file curl url);
use MainLog qw(log_offset log_since log_wait);

plan tests => 2 * 12;

my $vars = Apache::Test::config()->{vars};
my $apps = "$vars->{documentroot}/apps";
write_file("$apps/forkapp.cgp", "#!$vars->{top_dir}/lib/perl/cgiplus-psgi\napp forkapp.psgi\n");
write_file("$apps/forkwsgi.cgp", "#!$vars->{top_dir}/lib/python/cgiplus-wsgi\napp forkwsgi:app\n");

for my $name (qw(forkapp forkwsgi)) {
    my $u = "/apps/$name.cgp";
    my $ask = sub {
        my ($q) = @_;
        my ($code, undef, $body) = curl(url("$u?$q"));
        my ($pid) = $body =~ /pid (\d+)$/;
        return ("$code $body", $pid // 0);
    };
    my ($got, $pid) = $ask->('first');
    ok t_cmp($got, "200 answer to first pid $pid\n", "$name: the application answers");
    ($got) = $ask->('fork');
    ok t_cmp($got, "200 answer to fork pid $pid\n", "$name: a request that forks a child that exits: its own answer");
    sleep 1;    # the child has exited
    for my $q (qw(a b c)) {
        ($got) = $ask->($q);
        ok t_cmp($got, "200 answer to $q pid $pid\n",
                 "$name: after the child's exit: request $q, its own answer, the same worker");
    }

    my $off = log_offset();
    ($got) = $ask->('forkret');
    ok t_cmp($got, "200 answer to forkret pid $pid\n", "$name: a request whose child returns into the loop: its own answer");
    sleep 1;    # the child has written its response by now
    my @qs = qw(d e f g);
    my @got = map { [$ask->($_)] } @qs;
    for my $i (0 .. $#qs) {
        ok t_cmp($got[$i][0], qr/^200 answer to $qs[$i] pid \d+\n\z/,
                 "$name: after the child's response: request $qs[$i], its own answer");
    }
    # found by the runner's look at idle workers (2025) or by the child that
    # claims the worker (1130), whichever comes first
    my $stray = qr/CGIPLUS2025: worker pid $pid of \Q$apps\E\/$name\.cgp wrote \d+ bytes while it was idle|CGIPLUS1130: \Q$apps\E\/$name\.cgp \(worker pid $pid\) wrote \d+ bytes while it had no request/;
    my $found;
    if ($name eq 'forkapp') {
        $found = log_wait($off, $stray);
    } else {    # the runner looks at idle workers every second: two looks
        sleep 2.5;
        $found = log_since($off) =~ $stray;
    }
    my $who = join(' ', map { $_->[1] == $pid ? 'old' : 'new' } @got);
    if ($name eq 'forkapp') {
        ok t_cmp($found ? 1 : 0, 1, "$name: the stray response is found and the worker stopped as broken (2025 or 1130)");
        ok t_cmp($who, 'new new new new', "$name: a new worker serves from then on");
    } else {
        ok t_cmp($found ? 1 : 0, 0, "$name: the child had nothing to write with: no stray output");
        ok t_cmp($who, 'old old old old', "$name: the worker serves on");
    }
}
