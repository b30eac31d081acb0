package MainLog;
# The suite's httpd's error log (t/logs/error_log) from an offset taken
# before a request: what the request made the module, runner and engines
# log, and waiting for a line that comes through the runner a moment later.
use strict;
use warnings;
use Apache::Test ();
use Time::HiRes qw(sleep);
use Exporter 'import';
our @EXPORT_OK = qw(log_offset log_since log_wait);

my $errlog = Apache::Test::config()->{vars}{t_logs} . '/error_log';

# Where the log ends now.
sub log_offset { return (-s $errlog) || 0 }

# What was logged past $off ('' if nothing, or no log).
sub log_since {
    my ($off) = @_;
    open my $fh, '<', $errlog or return '';
    seek $fh, $off, 0;
    local $/;
    return <$fh> // '';
}

# Waits, 30 s at most, until what was logged past $off matches $re;
# whether it does.
sub log_wait {
    my ($off, $re) = @_;
    for (1 .. 300) {
        return 1 if log_since($off) =~ $re;
        sleep 0.1;
    }
    return 0;
}

1;
