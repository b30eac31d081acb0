# Security: a script may not write another process's files under /proc.
# /proc/PID/oom_score_adj and /proc/PID/autogroup ask no ptrace access,
# only the file's owner, and every worker of a uid (httpd's User by
# default) owns those of every other: a hostile script raised another
# pool's worker to oom_score_adj 1000, so that the OOM killer took that
# worker (and its replacements, raised in turn) rather than the script
# that filled the memory, and set its autogroup (its own session's: every
# worker has one) to nice 19, a CPU share of about 1.5 % against its
# own, past the seccomp filter that keeps setpriority to a worker's own
# processes. Now each worker's Landlock domain lets it write beneath every
# entry of / but /proc, and beneath its own /proc/PID (docs/RUNNER.md,
# "Another pool"). From every worker kind, each a pool of its own
# (t/conf/extra_hostile.conf.in): the Perl library, plain CGI under
# CGIplusCompat, the Perl and Python engines, CGI::Fast (FastCGI) and
# php-cgi; the victim is another pool's CGIplus worker. httpd's children
# are not the script's to write (not dumpable: root's files), as before.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget);

my @kinds = (['plus', 'procw.pl'], ['compat', 'procw.pl'], ['eperl', 'procw.pl'],
             ['epy', 'procw.py'], ['fcgi', 'procw_fcgi.pl'],
             (-x '/usr/bin/php-cgi' ? (['php', 'procw.php']) : ()));
plan tests => 3 + 3 * @kinds;

my $vars = Apache::Test::config()->{vars};
sub field { my ($r, $k) = @_; return ($r->{body} =~ /^\Q$k\E=(.*)$/m)[0] // '' }
sub slurp { my ($f) = @_; open my $fh, '<', $f or return "unreadable: $!"; local $/; return <$fh> // '' }

# The domains exist where the runner says so (2913); without Landlock
# (2914) a script may write these files, as before (docs/RUNNER.md).
my $log = slurp("$vars->{t_logs}/error_log");
my $domains = $log =~ /CGIPLUS2913: each worker starts in a Landlock domain/ ? 1 : 0;
ok t_cmp($domains || $log =~ /CGIPLUS2914:/ ? 1 : 0, 1, 'the runner says whether workers get a domain');

my $v = hget('/pool/other/other.pl');
my $victim = $v->{headers}{'x-pid'} // 0;
ok t_cmp($victim =~ /^\d+$/ && $victim > 0 ? 1 : 0, 1, "another pool's worker (pid $victim)");
my $before = slurp("/proc/$victim/oom_score_adj") . slurp("/proc/$victim/autogroup");

my $want = $domains ? 'refused (Permission denied)' : 'wrote';
for my $k (@kinds) {
    my ($kind, $script) = @$k;
    my $r = hget("/hostile/$kind/$script?pid=$victim");
    ok t_cmp("$r->{code} " . field($r, 'oom_score_adj') . ' | ' . field($r, 'autogroup'),
             "200 $want | $want",
             "$kind: another pool's worker's oom_score_adj and autogroup not to be written");
    ok t_cmp(field($r, 'pid') ne $victim ? 1 : 0, 1, "$kind: the script is not the victim");
    # its own /proc/PID stays writable (an autogroup takes 10 changes a
    # second system-wide: opened is what counts)
    $r = hget("/hostile/$kind/$script?pid=self");
    ok t_cmp("$r->{code} " . field($r, 'oom_score_adj') . ' | ' . field($r, 'autogroup'),
             qr/^200 wrote \| (wrote|opened\b.*)$/, "$kind: its own it writes");
}
my $after = slurp("/proc/$victim/oom_score_adj") . slurp("/proc/$victim/autogroup");
ok t_cmp($after, $domains ? $before : $after, "the victim's oom_score_adj and autogroup as they were");
