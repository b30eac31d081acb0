# A plain CGI program that reads its body to end of file, put under
# CGIplusMode cgiplus (issue 25, point 5). A new worker's stdin has no
# writer until the worker has read its first request's "!" line from
# CGIPLUSIN, which a plain CGI program never does: such a program reads end
# of file at once, with nothing of any request (no variables, no body),
# answers and exits; the runner then runs the request as plain CGI (2080),
# as it does for a program that does not read stdin. So the request is
# answered at once and right, its body intact, and it runs once: the first
# run saw nothing of it. Before, the program waited on a stdin that never
# ends until the no-progress timeout (504), holding its worker.
# Real scripts: a Perl <STDIN> loop (readall.pl) and cat (cat.sh), beside
# mod_cgid.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use Apache::TestRequest ();
use File::Path qw(make_path remove_tree);
use Time::HiRes qw(time);
use lib 't/lib';
use RawHTTP qw(raw_request);
use lib 't/htdocs/pool/lib';
use PoolTest qw(status);

plan tests => 19;

my $vars = Apache::Test::config()->{vars};
my $hp = Apache::TestRequest::hostport();
my $errlog = "$vars->{t_logs}/error_log";
sub log_text { open my $fh, '<', $errlog or return ''; local $/; return <$fh> // '' }
sub count { my ($re) = @_; my @m = log_text() =~ /$re/g; return scalar @m }
sub timed {
    my ($method, $path, $body) = @_;
    my $t = time;
    my $r = raw_request($hp, $method, $path, [], $body);
    $r->{secs} = time - $t;
    return $r;
}

# Every run of readall.pl writes what it saw here.
my $ledger = "$vars->{t_logs}/ledger3g";
remove_tree($ledger);
make_path($ledger);
chmod 0777, $ledger;
# One record a run: a body may hold line ends.
sub runs { open my $fh, '<', "$ledger/runs" or return (); local $/; return split /(?=^method=)/m, <$fh> // '' }

# --- readall.pl, its pool's first request a GET
my $r = timed(GET => '/dropin/readall.pl?id=1');
ok t_cmp("$r->{code} $r->{body}", "200 method=GET query=id=1 body=\n",
         'readall.pl (a <STDIN> loop), first request: answered as plain CGI');
ok t_cmp($r->{secs} < 3 ? 1 : $r->{secs}, 1, 'at once, not after a timeout');

# --- another pool of it, whose first request is a POST: the body is intact
my @p = map { timed(POST => "/dropin-post/readall.pl?id=$_", "line one\nline $_") } 2 .. 4;
ok t_cmp(join('|', map { "$_->{code} $_->{body}" } @p),
         join('|', map { "200 method=POST query=id=$_ body=line one\nline $_\n" } 2 .. 4),
         'POST first: that request and the next two get their bodies');
ok t_cmp((grep { $_->{secs} < 3 } @p) == 3 ? 1 : join(' ', map { $_->{secs} } @p), 1, 'each at once');

# --- it ran once per request: the runs that saw a request, and the
# worker's first runs, which saw nothing (no method, no query, no body)
my @runs = runs();
for my $id (1 .. 4) {
    ok t_cmp(scalar(grep { /query=id=$id( |$)/ } @runs), 1, "request $id ran once");
}
my @empty = grep { /\Amethod= query= body=\n\z/ } @runs;
ok t_cmp(scalar(@empty), 2, "one empty run per pool: the worker's, which got nothing of any request");
ok t_cmp(scalar(@runs), 6, 'and no other run');
ok t_cmp(count(qr/CGIPLUS2080: \S+dropin\/readall\.pl does not speak CGIplus/), 2,
         'one 2080 line per pool, saying to set CGIplusMode cgi');

# --- cat.sh, beside mod_cgid, native and in a CGIplusCompat scope set persistent
for my $scope (qw(dropin dropin-compat-plus)) {
    my $g = timed(GET => "/$scope/cat.sh?q=1");
    my $want = raw_request($hp, GET => '/dropin-cgid/cat.sh?q=1');
    ok t_cmp("$g->{status_line}|$g->{body}", "$want->{status_line}|$want->{body}",
             "cat.sh under /$scope/, GET first: as mod_cgid");
    my $b = timed(POST => "/$scope/cat.sh?q=2", 'posted words');
    $want = raw_request($hp, POST => '/dropin-cgid/cat.sh?q=2', [], 'posted words');
    ok t_cmp("$b->{status_line}|$b->{body}", "$want->{status_line}|$want->{body}",
             "cat.sh under /$scope/, then a POST: as mod_cgid");
    ok t_cmp($g->{secs} < 3 && $b->{secs} < 3 ? 1 : "$g->{secs} $b->{secs}", 1, 'both at once');
}

# --- no timeout, and no worker left holding anything
ok t_cmp(count(qr/CGIPLUS(?:2062|1063|1706)[^\n]*(?:readall\.pl|cat\.sh)/), 0, 'no timeout logged');
# A plain CGI run is listed until the runner reaps it, a few ms after its
# response (CI once saw the last POST's cat.sh there): held means still
# there after that.
my @held;
for (1 .. 30) {
    @held = grep { $_->{state} ne 'idle' }
            map { @{ $_->{workers} } } grep { $_->{script} =~ m{/dropin/(?:readall\.pl|cat\.sh)$} }
            @{ status()->{pools} };
    last unless @held;
    select undef, undef, undef, 0.1;
}
ok t_cmp(join(' ', map { "$_->{pid}:$_->{state}" } @held), '', 'no worker of theirs is busy or held');
