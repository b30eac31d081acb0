# httpd graceful restarts keep the one runner: a busy worker finishes its
# request, requests keep succeeding during the restart, and new pool
# settings from the reloaded configuration apply (a new pool; the old one
# drains: the restart had its workers go as "reload", t/45_reload_roll.t).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget hstart hfinish status pool_of wait_for runner_pid);

plan tests => 11;

my $vars = Apache::Test::config()->{vars};
my $conf = "$vars->{t_logs}/cgiplus-reload.conf";
my $errlog = "$vars->{t_logs}/error_log";
sub log_text { open my $fh, '<', $errlog or return ''; local $/; return <$fh> }
sub pid_of { my ($r) = @_; return ($r->{body} =~ /pid=(\d+)/)[0] // 0 }

sub graceful {
    my ($maxreq) = @_;
    open my $fh, '>', $conf or die "$conf: $!";
    print $fh "<Location /pool/reload/>\n    CGIplusSetEnv POOL_reload reload\n"
        . "    CGIplusMaxWorkers 2\n    CGIplusMaxRequests $maxreq\n</Location>\n";
    close $fh;
    open my $pf, '<', "$vars->{t_logs}/httpd.pid" or die "httpd.pid: $!";
    my $httpd = <$pf>;
    chomp $httpd;
    kill 'USR1', $httpd;
}

sub settings_now {
    my ($maxreq) = @_;
    return wait_for(sub {
        my $r = hget('/pool/reload/app.pl');
        return 0 unless $r->{body} =~ /pool=reload/;
        my $p = pool_of(status(), 'reload');
        return $p && $p->{settings}{max_requests} == $maxreq && !$p->{retired} }, 10, 0.1);
}

my $runner = runner_pid();
graceful(100);
ok t_cmp(settings_now(100) ? 1 : 0, 1, 'after a graceful restart the new Location applies');
my $reloads = status()->{runner}{reloads};

# A long request on a worker (held until the restarts are done), and a
# client requesting without pause.
my $release = "$vars->{t_logs}/reload.release";
unlink $release;
my $long = hstart("/pool/reload/app.pl?hold=$release");
my $stop = "$vars->{t_logs}/reload.stop";
unlink $stop;
pipe my $rd, my $wr or die;
my $kid = fork // die;
if (!$kid) {
    close $rd;
    $wr->autoflush(1);
    until (-e $stop) {
        my $r = hget('/pool/reload/app.pl', timeout => 10);
        print $wr "$r->{code} $r->{complete}\n";
    }
    exit 0;
}
close $wr;
my $busy = wait_for(sub { my $p = pool_of(status(), 'reload');
    my ($w) = grep { ($_->{uri} // '') =~ /hold=/ } @{ $p->{workers} }; $w }, 10);
graceful(50);
ok t_cmp(settings_now(50) ? 1 : 0, 1, 'changed settings apply after the next graceful restart');
open my $rel, '>', $release or die "$release: $!";
close $rel;
my $l = hfinish($long);
unlink $release;
open my $sf, '>', $stop or die;
close $sf;
my @lines = <$rd>;
waitpid $kid, 0;

ok t_cmp("$l->{code} $l->{complete}", '200 1', 'the busy request was not killed by the restart');
ok t_cmp(pid_of($l), $busy ? $busy->{pid} : -1, 'its worker finished it');
my @bad = grep { !/^200 1$/ } @lines;
ok t_cmp(scalar(@bad), 0, scalar(@lines) . ' requests during the restarts, none failed');
ok t_cmp(runner_pid(), $runner, 'the same runner serves across restarts');
my $st = status();
ok t_cmp($st->{runner}{reloads} > $reloads ? 1 : 0, 1, 'the runner read its settings again');
my @live = grep { !$_->{retired} && grep { $_ eq 'POOL_reload' } @{ $_->{settings}{env} } }
           @{ $st->{pools} };
ok t_cmp(scalar(@live), 1, 'one live pool for the new settings');
my $old_gone = wait_for(sub { !grep { $_->{settings}{max_requests} == 100 && !$_->{retired} }
                               @{ status()->{pools} } }, 6, 0.2);
ok t_cmp($old_gone ? 1 : 0, 1, 'the pool of the old settings is retired once unused (3 s)');
my $bp = $busy ? $busy->{pid} : 0;
# The restart rolled its pool over before the new settings retired it.
ok t_cmp(wait_for(sub { log_text() =~ /CGIPLUS2028: worker pid $bp of \S+ ended: reload/ }, 3)
         ? 1 : 0, 1, 'its worker went after its request, as "reload"');
ok t_cmp(log_text() =~ /CGIPLUS1604: keeping cgiplus-runner \(pid $runner\) across the restart/
         ? 1 : 0, 1, 'the module logged that it kept the runner (1604)');

unlink $conf;
