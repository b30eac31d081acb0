# t/47_security_proc.t: what a hostile script writes under /proc/PID of
# another process of its uid (?pid=N), or of its own (?pid=self):
# oom_score_adj (the OOM killer's choice) and autogroup (a CPU share).
# No ptrace access is asked for these, only the file's owner.
use strict;
use warnings;

sub procw_report {
    my ($q) = @_;
    my ($pid) = ($q // '') =~ /\bpid=(\d+|self)/;
    $pid = $$ if !$pid || $pid eq 'self';
    my $out = "pid=$$\n";
    for my $f (['oom_score_adj', '1000'], ['autogroup', '19']) {
        my ($name, $val) = @$f;
        my $fh;
        # an autogroup's nice value changes at most 10 times a second,
        # system-wide (EAGAIN): opened is what counts
        my $r = !open($fh, '>', "/proc/$pid/$name") ? "refused ($!)"
              : syswrite($fh, $val) ? 'wrote' : "opened ($!)";
        $out .= "$name=$r\n";
    }
    return $out;
}
1;
