# A pre-fork FastCGI application (php-cgi with PHP_FCGI_CHILDREN and
# PHP_FCGI_MAX_REQUESTS, FCGI::ProcManager: the parent keeps the listening
# socket, a child accepts) whose child ends after its Nth request a moment
# after END_REQUEST: a request written on the kept connection in that gap
# meets the close unread (ECONNRESET), and fails (502: a request of which
# bytes went is never sent again, t/59_fcgi_prefork.t). The worker was not
# learnt as closing its connections, so every child's last request failed
# the same way (5 of 20 here). Now that failure learns it (2926): later
# requests get a new connection each, and at most one request per worker
# fails. t/htdocs/fcgi/prefork.pl with PREFORK_MAX_REQUESTS 3 and a 300 ms
# gap, one worker, 20 back-to-back requests on one keep-alive connection,
# on the direct path (/fcgipg/) and relayed (/fcgipgr/): at most one not
# 200, none run twice (the application's ledger), the 2926 line.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use HTTP::Tiny;
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(url);

my $n = 20;
plan tests => 2 * 4,
    need { 'needs FCGI (libfcgi-perl)' => !system('perl -MFCGI -e1 2>/dev/null') };

my $vars = Apache::Test::config()->{vars};
my $errlog = "$vars->{t_logs}/error_log";
my $ledger = "$vars->{t_logs}/fcgi-ledger.prefork"; # the pools' FCGI_LEDGER, .prefork
for my $f ("$vars->{t_logs}/fcgi-ledger", $ledger) {
    open my $fh, '>>', $f or die "$f: $!";
    close $fh;
    chmod 0666, $f;
}

sub text { open my $fh, '<', $_[0] or return ''; local $/; <$fh> }
sub ran { my ($id) = @_; scalar grep { /^\d+ \S*\bn=\Q$id\E$/ } split /\n/, text($ledger) }

for my $c (['direct', '/fcgipg/prefork.pl'], ['relayed', '/fcgipgr/prefork.pl']) {
    my ($how, $path) = @$c;
    my $mark = length text($errlog);
    my $http = HTTP::Tiny->new(keep_alive => 1, timeout => 60);
    my (@bad, %worker, @twice, @lost);
    for my $i (1 .. $n) {
        my $id = "$$-$how-$i";
        my $res = $http->get(url("$path?ok&n=$id"));
        if ($res->{status} == 200 && $res->{content} =~ /^pid=\d+ q=ok&n=\Q$id\E body=0\n\z/) {
            $worker{$res->{headers}{'x-worker'} // '?'}++;
        }
        else {
            push @bad, "$i:$res->{status}";
        }
    }
    ok t_cmp(scalar(@bad) <= 1 ? 1 : 0, 1,
             "$how: at most one of $n requests failed (failed: @bad)");
    # the ledger: each answered request ran once, none twice
    for my $i (1 .. $n) {
        my $k = ran("$$-$how-$i");
        my $failed = grep { /^$i:/ } @bad;
        push @twice, $i if $k > 1;
        push @lost, $i if !$failed && $k != 1;
    }
    ok t_cmp("@twice|@lost", '|', "$how: no request ran twice, each answered one once");
    my @w = keys %worker;
    ok t_cmp(scalar(@w), 1, "$how: one worker served them (@w)");
    my $learnt = 0;
    for (1 .. 120) {
        $learnt = () = substr(text($errlog), $mark) =~
            /CGIPLUS2926: FastCGI worker pid \Q$w[0]\E of \S+\/prefork\.pl closes/g;
        last if $learnt;
        select undef, undef, undef, 0.25;
    }
    # (also when no request met the gap: the close is then found between
    # requests)
    ok t_cmp($learnt, 1, "$how: worker $w[0] learnt as closing after each request, once (2926)");
}
