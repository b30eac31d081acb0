# An HTTP/2 client that resets a stream (RST_STREAM) whose request waits
# for the pool's only worker: the request leaves the queue and never runs,
# through the runner's queue (CGIplusDirect off) as through the table's,
# and the next request on the connection is served at once. mod_http2
# marks a reset stream's connection aborted; the module looks at that mark
# while it waits (1077). t/lib/h2reset.py drives one h2c connection.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;

plan tests => 2 * 3, need { 'needs python3-h2 (Debian package python3-h2)' =>
                                !system('/usr/bin/python3 -c "import h2" 2>/dev/null') };

my $vars = Apache::Test::config()->{vars};
my $port = Apache::Test::config()->port('cgiplus_h2c');
for my $p (qw(hc-queue-relay hc-queue)) {
    my $ledger = "$vars->{t_logs}/h2reset-$p.ledger";
    unlink $ledger;
    open my $fh, '>', $ledger or die "$ledger: $!";
    close $fh;
    chmod 0666, $ledger;
    my $out = `/usr/bin/python3 t/lib/h2reset.py $port /$p $ledger 2>&1`;
    my ($a, $d, $took) = $out =~ /^A (\S+) D (\S+) ([\d.]+)$/m;
    ok t_cmp(($a // '?') . ' ' . ($d // '?'), '200 200', "/$p over h2c: the running and the next request answer ($out)");
    ok t_cmp(defined $took && $took < 0.9 ? 1 : 0, 1,
             "/$p: the next request does not wait for the reset one (" . ($took // '?') . ' s)');
    open $fh, '<', $ledger or die "$ledger: $!";
    my @ran = map { /^start (\S+)/ ? $1 : () } <$fh>;
    ok t_cmp("@ran", 'A D', "/$p: the reset request never ran");
}
