package Marks;
# The files a test's scripts write their progress into, one per tag in a
# directory ("started PID", "finished", "shutdown ..."): read them, and
# wait, 60 s at most, for what they or the script's process should come to.
use strict;
use warnings;
use Time::HiRes qw(sleep time);
use Exporter 'import';
our @EXPORT_OK = qw(marks_of wait_marks wait_gone);

# What $dir/$tag holds ('' before it exists).
sub marks_of {
    my ($dir, $tag) = @_;
    open my $fh, '<', "$dir/$tag" or return '';
    local $/;
    return <$fh> // '';
}

# Waits until $dir/$tag matches $re; what it holds then.
sub wait_marks {
    my ($dir, $tag, $re) = @_;
    my $t = time + 60;
    sleep 0.1 while time < $t && marks_of($dir, $tag) !~ $re;
    return marks_of($dir, $tag);
}

# Waits until process $pid is gone; whether it is.
sub wait_gone {
    my ($pid) = @_;
    my $t = time + 60;
    sleep 0.1 while time < $t && kill(0, $pid);
    return kill(0, $pid) ? 0 : 1;
}

1;
