# Core's RLimitCPU, RLimitMEM and RLimitNPROC, as mod_cgi and mod_cgid apply
# them to each CGI process: side by side with mod_cgid, a CGIplusCompat
# scope's plain CGI runs get the same soft limits (and a runaway script the
# same 500), CGIplusRLimit still wins where it is set, and a persistent
# worker keeps the runner's own (it would count its whole life against
# RLimitCPU). docs/cgi-compat.md, "Processes".
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use Apache::TestRequest qw(GET_BODY GET);

plan tests => 12;

sub limits {
    my $body = GET_BODY(shift);
    my %l;
    $l{$1} = $2 while $body =~ /^Max (cpu time|address space|processes) (\S+)/mg;
    return \%l;
}

my $cgid = limits('/cgid-rlimit/limits.sh');
ok t_cmp($cgid->{'cpu time'}, 1, 'mod_cgid: RLimitCPU 1');
ok t_cmp($cgid->{'address space'}, 900000000, 'mod_cgid: RLimitMEM');
ok t_cmp($cgid->{processes}, 60000, 'mod_cgid: RLimitNPROC');

for my $i (1, 2) {
    my $ours = limits('/compat-rlimit/limits.sh');
    ok t_cmp(join(',', map { $ours->{$_} // '-' } sort keys %$cgid),
             join(',', map { $cgid->{$_} } sort keys %$cgid),
             "compat scope, run $i: the same soft limits as under mod_cgid");
}

my $own = limits('/compat-rlimit-own/limits.sh');
ok t_cmp($own->{'cpu time'}, 5, 'CGIplusRLimit cpu wins over RLimitCPU');
ok t_cmp($own->{processes}, 61000, 'CGIplusRLimit nproc wins over RLimitNPROC');
ok t_cmp($own->{'address space'}, 900000000, 'RLimitMEM still applies beside them');

my $plus = limits('/compat-rlimit-plus/limits.sh');
ok t_cmp($plus->{'cpu time'}, 'unlimited', 'a persistent worker: no RLimitCPU');

# A script that spins: SIGXCPU after a second of CPU, before any output.
my $rc = GET('/cgid-rlimit/burn.pl');
ok t_cmp($rc->code, 500, 'mod_cgid: a spinning script stopped by RLimitCPU: 500');
my $rp = GET('/compat-rlimit/burn.pl');
ok t_cmp($rp->code, 500, 'compat: the same 500 (not the timeout\'s 504)');
ok t_cmp(scalar(() = `pgrep -f burn.pl`), 0, 'no spinning script left');
