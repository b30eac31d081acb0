# A worker that dies in a request it took fails that request only: it is
# no crash loop, so one client asking a URL that crashes its script again
# and again cannot put the pool into the crash-loop backoff, where every
# other client's request gets 503. Before, two such deaths in a row on an
# idle pool did (the backoff's 503s for everyone, doubling while the client
# went on). A script that dies at start, before it reads its first
# request, still backs off (t/43_faults.t). CGIplus relayed and on the
# direct path, and a FastCGI application (it answered the runner's
# GET_VALUES: it started up).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget status pool_of wait_for);

my @cases = (
    # the pool's tag, a request, requests that kill their worker, what it is
    ['crashq', '/pool/crashq/app.pl', ['/pool/crashq/app.pl?crash', '/pool/crashq/app.pl?die_early'],
     'CGIplus'],
    ['crashq_relay', '/pool/crashq_relay/app.pl',
     ['/pool/crashq_relay/app.pl?crash', '/pool/crashq_relay/app.pl?die_early'], 'CGIplus, relayed'],
    ['fcgic', '/fcgic/app', ['/fcgic/app?crash', '/fcgic/app?crashmid'], 'FastCGI'],
);
plan tests => 5 * @cases;

for my $c (@cases) {
    my ($tag, $ok, $bad, $what) = @$c;
    ok t_cmp(hget($ok)->{code}, 200, "$what: the pool serves");
    # One client, six requests in a row that each kill their worker.
    my @got = map { hget($bad->[$_ % 2]) } 0 .. 5;
    ok t_cmp(scalar(grep { $_->{code} == 200 && $_->{complete} } @got), 0,
             "$what: each of them fails (" . join(' ', map { $_->{code} } @got) . ')');
    my $p = wait_for(sub { my $p = pool_of(status(), $tag);
                           $p && ($p->{counters}{deaths}{crashed} // 0) +
                                 ($p->{counters}{deaths}{exited} // 0) >= 6 ? $p : undef }, 30, 0.2);
    ok t_cmp($p ? 1 : 0, 1, "$what: six workers died in their requests");
    ok t_cmp($p ? "$p->{backoff}{failures} $p->{backoff}{remaining_ms}" : '', '0 0',
             "$what: no crash-loop backoff");
    # Other clients are served at once, not answered 503.
    my @codes = map { hget($ok)->{code} } 1 .. 5;
    ok t_cmp("@codes", '200 200 200 200 200', "$what: other clients' requests are served");
}
