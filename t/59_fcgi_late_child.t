# Records a FastCGI worker writes for an earlier request never answer a
# later one. A CGI::Fast program that forks during a request, its child not
# calling Detach (a common bug), has the child's exit flush the child's copy
# of that request's output and end that request again, on the connection
# the worker shares with it. When that lands while the worker serves the
# next request, whatever holds the worker read it as the next request's
# answer: the next client got "PRIVATE DATA OF request N", another
# client's, with 200 (on the direct path and relayed). Now each request on
# a worker has its own FastCGI request id (one more than the last, in the
# worker's slot), so those records carry the old id: the worker broke the
# protocol (1903 direct, 2907 relayed, naming the script and both ids), the request
# fails with 502, and the next request meets a new worker.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep);
use lib 't/lib', 't/htdocs/apps';
use MainLog qw(log_offset log_since);
use AppTest qw(curl url);
use IO::Socket::INET;
use lib 't/htdocs/pool/lib';
use PoolTest qw(kept_get kept_direct);
use PrivateHttpd qw(resp_code resp_body);

plan tests => 6 * 2,
    need { 'needs CGI::Fast (libcgi-fast-perl)' => !system('perl -MCGI::Fast -e1 2>/dev/null') };

my $vars = Apache::Test::config()->{vars};
my $flag = "$vars->{t_logs}/fcgi-ledger.forky";   # the pool's FCGI_LEDGER, .forky
for my $f ("$vars->{t_logs}/fcgi-ledger", $flag) {
    open my $fh, '>>', $f or die "$f: $!";
    close $fh;
    chmod 0666, $f;
}

# On the direct path the requests up to ?wait go on one kept-alive
# connection, after requests on it until one is not relayed (2021): a
# worker's first request and a child's first of the pool go through the
# runner, which then logs 2907, not 1903, and which child takes a new
# connection is the MPM's.
for my $c (['direct', '/fcgi/forky.pl', 1903], ['relayed', '/fcgir/forky.pl', 2907]) {
    my ($how, $path, $id) = @$c;
    my $s;
    if ($how eq 'direct') {
        $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $vars->{port},
                                   Proto => 'tcp', Timeout => 5) or die "connect: $!";
    }
    # (code, undef, body); a response cut short on $s is code 0
    my $get = sub { return curl(url($_[0])) unless $s;
                    my $raw = eval { kept_get($s, $_[0]) } // '';
                    return (resp_code($raw), undef, resp_body($raw)) };
    my ($code, $h, $body) = $get->("$path?plain");
    ok t_cmp("$code $body", qr/^200 pid=\d+ request=\d+ q=plain\n\z/, "$how: served");
    kept_direct($s, "$path?warm%d", "$vars->{t_logs}/error_log") if $s;
    my $off = log_offset();
    ($code, $h, $body) = $get->("$path?fork");
    ok t_cmp("$code $body", qr/^200 pid=\d+ request=\d+ q=fork\nPRIVATE DATA OF request \d+\n\z/,
             "$how: the forking request gets its own answer");
    # the child ends while this request runs on the same worker (one per pool)
    ($code, $h, $body) = $get->("$path?wait");
    close $s if $s;
    ok t_cmp($body !~ /PRIVATE DATA/ ? 'none' : "leaked: $body", 'none',
             "$how: the next client sees nothing of the child's records");
    ok t_cmp($code, 502, "$how: and is answered 502");
    my $ids = '';
    for (1 .. 100) {
        $ids = "$1 $2", last if log_since($off) =~ /CGIPLUS$id: FastCGI worker pid \d+ of \S+forky\.pl broke the protocol: FastCGI request id not the one in flight \(record id (\d+), request (\d+) in flight\)/;
        sleep 0.1;
    }
    my ($rec, $cur) = split ' ', $ids || '0 0';
    ok t_cmp($cur && $rec == $cur - 1 ? 1 : "'$ids'", 1,
             "$how: logged ($id), naming the script and the earlier request's id");
    ($code, $h, $body) = curl(url("$path?after"));
    ok t_cmp("$code $body", qr/^200 pid=\d+ request=1 q=after\n\z/, "$how: the next request meets a new worker");
}
