# A pool whose own Landlock domain cannot be made (runner_domain.c: the
# thread that would fork its processes is refused, here by strace making
# the runner's clone3 fail, which pthread_create uses and fork does not)
# says so (3660) and serves on: each of its processes enters a domain of
# its own that scopes signals, as before pools had domains, so a later run
# of its script may not signal what an earlier one left behind.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use POSIX ();
use lib 't/lib', 't/htdocs/pool/lib';
use MainLog qw(log_offset log_since);
use PoolTest qw(hget strace_on strace_off runner_pid);

my $vars = Apache::Test::config()->{vars};
my $abi = do { local (@ARGV, $/) = "$vars->{t_logs}/error_log"; <> } =~ /CGIPLUS2913: .*\(ABI (\d+)\)/ ? $1 : 0;
plan tests => 5, need { 'needs strace' => system('command -v strace >/dev/null 2>&1') == 0,
                        'needs Landlock ABI 6 (signals scoped: pools get domains)' => $abi >= 6 };
sub field { my ($r, $k) = @_; return ($r->{body} =~ /^\Q$k\E=(.*)$/m)[0] // '' }

my $st = strace_on(runner_pid(), '-e', 'trace=clone3', '-e', 'inject=clone3:error=EAGAIN');
my $off = log_offset();
my $r = hget('/pool/nodomain/whoami.pl?daemon');
strace_off($st);
ok t_cmp($r->{code}, 200, "the pool's first request is served though its domain thread could not start");
my $d = field($r, 'daemon');
ok t_cmp($d, qr/^\d+$/, 'and its plain CGI run left a process behind');
ok t_cmp(log_since($off), qr{CGIPLUS3660: cannot make the Landlock domain of the pool of \S+/whoami\.pl \(Resource temporarily unavailable\)},
         'the runner says why (3660)');
$d ||= 0;
$r = hget("/pool/nodomain/whoami.pl?signal=$d");
ok t_cmp($r->{code}, 200, 'the next run is served, without a new try at the thread');
ok t_cmp(field($r, "signal_$d"), 'refused (Operation not permitted)',
         'each process scopes signals itself: the later run may not signal the earlier one\'s');
kill 'KILL', $d if $d;
