# When memory runs out the kernel kills the process with the highest OOM
# score: a script that grows (or forks many children that grow) must be
# the one to go, not the runner (every pool's supervisor) or an httpd
# process. The runner starts each worker with oom_score_adj 500 (or its
# own, if higher), set as root before the user switch, so the script cannot
# lower it again, and its children inherit it.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget runner_pid);

plan tests => 6;

my $vars = Apache::Test::config()->{vars};
sub field { my ($r, $k) = @_; return ($r->{body} =~ /^\Q$k\E=(.*)$/m)[0] // '' }
sub proc_status { open my $fh, '<', "/proc/$_[0]/status" or return ''; local $/; <$fh> // '' }
sub proc { open my $fh, '<', "/proc/$_[0]/$_[1]" or return ''; my $v = <$fh> // ''; chomp $v; $v }

my $r = hget('/pool/oom/oomadj.pl');
ok t_cmp($r->{code}, 200, 'the script answers');
ok t_cmp(field($r, 'adj'), 500, "the worker's oom_score_adj is 500");
ok t_cmp(field($r, 'child_adj'), 500, 'and its children inherit it');
# The floor: root writes the value with CAP_SYS_RESOURCE, which a
# container may have taken from it (this test's machine has); then the
# script may lower it back to the runner's own value, never below.
my $rpid = runner_pid();
ok t_cmp(field($r, 'below_runner'), qr/^refused \(Permission denied\)/,
         "nor put itself below the runner's value");

# What the OOM killer compares: the worker scores above the runner and
# httpd's processes, whatever their sizes.
my $wpid = field($r, 'pid');
open my $fh, '<', "$vars->{t_logs}/httpd.pid" or die "httpd.pid: $!";
my ($hpid) = (<$fh> // '') =~ /(\d+)/;
my @httpd = ($hpid, map { /(\d+)/ ? $1 : () } split ' ', `pgrep -P $hpid`);
my ($top, $top_pid) = (-1, 0);
for my $p ($rpid, @httpd) {
    my $s = proc($p, 'oom_score');
    ($top, $top_pid) = ($s, $p) if $s ne '' && $s > $top;
}
my $wscore = proc($wpid, 'oom_score');
ok t_cmp($top >= 0 && $rpid > 0 ? 1 : 0, 1, "the runner ($rpid) and httpd's processes (@httpd) have OOM scores");
ok t_cmp($wscore ne '' && $wscore > $top ? 1 : 0, 1,
         "the worker's OOM score ($wscore) is above the runner's and httpd's (highest $top, pid $top_pid)");
