# A graceful restart replaces the workers of pools whose settings did not
# change, as mod_fcgid and mod_wsgi restart their processes with httpd: an
# idle worker stops at once (reason "reload", 2060), and the next request
# meets a new worker that reads what it read at start again (a php.ini,
# here a file app.pl reads at its first request). Between restarts a
# worker keeps what it read (that is what persistence is).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget status pool_of wait_for runner_pid);

plan tests => 10;

my $vars = Apache::Test::config()->{vars};
my $errlog = "$vars->{t_logs}/error_log";
my $file = "$vars->{t_logs}/roll.conf";
sub log_text { open my $fh, '<', $errlog or return ''; local $/; return <$fh> }
sub put { open my $fh, '>', $file or die "$file: $!"; print $fh "$_[0]\n"; close $fh }
sub get {
    my $r = hget("/pool/roll/app.pl?startconf=$file");
    my ($pid) = $r->{body} =~ /pid=(\d+)/;
    my ($conf) = $r->{body} =~ /^startconf=(\S*)/m;
    return ($r->{code}, $pid // 0, $conf // '');
}
sub graceful {
    open my $pf, '<', "$vars->{t_logs}/httpd.pid" or die "httpd.pid: $!";
    my $httpd = <$pf>;
    chomp $httpd;
    kill 'USR1', $httpd;
}

put('one');
my ($code, $pid, $conf) = get();
ok t_cmp("$code $conf", '200 one', 'a worker reads the file at its first request');
my ($code2, $pid2, $conf2) = get();
put('two');
my ($code3, $pid3, $conf3) = get();
ok t_cmp($pid3, $pid, 'one worker serves request after request');
ok t_cmp($conf3, 'one', 'and keeps what it read, changed file or not');

my $runner = runner_pid();
my $reloads = status()->{runner}{reloads};
graceful();
ok t_cmp(wait_for(sub { status()->{runner}{reloads} > $reloads }, 15, 0.1) ? 1 : 0, 1,
         'the runner was reloaded by the graceful restart');
my @after = get();
ok t_cmp($after[0], 200, 'the next request succeeds');
ok t_cmp($after[1] != $pid && $after[1] != $pid2 ? 1 : 0, 1,
         'it meets a new worker (old ' . join(',', $pid, $pid2) . ", new $after[1])");
ok t_cmp($after[2], 'two', 'which read the file again');
ok t_cmp(wait_for(sub { log_text() =~ /CGIPLUS2028: worker pid $pid of \S+ ended: reload/ }, 5)
         ? 1 : 0, 1, 'the old worker ended as "reload" (2028)');
ok t_cmp(log_text() =~ /CGIPLUS2060: reload: \d+ pools? rolls? over to new workers/ ? 1 : 0, 1,
         'the roll-over is logged (2060)');
ok t_cmp(runner_pid(), $runner, 'the same runner serves across the restart');
unlink $file;
