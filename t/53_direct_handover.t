# A worker passes between the runner and the httpd children: the runner
# relays a queued request on it, publishes it when the response ends, and a
# child may claim it at once. From then on its stdout is the child's: the
# runner must not read it, or it takes the child's response (logged as
# output after the sentinel, CGIPLUS2025) and the child waits until httpd's
# Timeout. The runner's reads are slowed (strace -e inject) so that a child
# claims the worker while the runner is still in its read loop; c4 on the
# two workers of /direct/small/ makes requests wait, and POSTs with a body
# over CGIplusBodyBuffer (relayed) wait with them: the worker that frees up
# goes to the oldest, the runner's or a child's (issue 23).
# Before the fix this failed 3 runs of 3 (one request a 504 after 60 s).
# Then the same on /direct/lap/, whose queue has a ring of 16 entries: a
# ticket of the slowed runner stays handed (not yet taken) while the
# children's tickets go round the ring; the tail must pass that entry, not
# answer 503 "queue full" with nobody waiting. Before that fix, 3 runs of 3
# failed here: 304 of 4000 GETs on /direct/small/, 2168 and 1731 of 20000
# on /direct/lap/ (CGIPLUS1731 "queue full (0 waiting, ...)").
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);
use Time::HiRes qw(sleep time);
use lib "t/htdocs/pool/lib";
use PoolTest qw(runner_pid strace_on strace_off);

plan tests => 9,
    need { map { ("needs $_" => system("command -v $_ >/dev/null 2>&1") == 0) } qw(strace h2load) };

my $vars = Apache::Test::config()->{vars};
my $port = $vars->{port};
my $logf = "$vars->{t_logs}/error_log";

my $runner = runner_pid() or die "no runner pid\n";

sub slowed {
    my ($pool, $n) = @_;
    my $url = "http://127.0.0.1:$port/direct/$pool/hello";

    # Every child knows the pool (the runner named it): requests go direct
    # whenever the worker is free, through the runner's queue when it is not.
    system("h2load --h1 -n 200 -c 8 $url >/dev/null 2>&1");
    GET("/direct/$pool/hello") for 1 .. 30;

    my $before = -s $logf;
    my $trace = "$vars->{t_logs}/strace-handover-$$.txt";
    unlink $trace;
    # every read of the runner waits 20 ms before it is made
    my $st = strace_on($runner, '-s', '8', '-e', 'trace=read', '-e',
                       'inject=read:delay_enter=20000', '-o', $trace);
    my $t0 = time;
    my $body = "$vars->{t_logs}/body-70k-$$";
    open my $bf, '>', $body or die "$body: $!";
    print $bf 'x' x 70000;
    close $bf;
    my $poster = fork // die "fork: $!";
    if (!$poster) {
        exec "h2load --h1 -n 60 -c 1 -d $body $url >$body.out 2>&1";
        exit 127;
    }
    my $o = `h2load --h1 -n $n -c 4 $url 2>&1`;
    waitpid $poster, 0;
    my $secs = time - $t0;
    strace_off($st);

    my ($two) = $o =~ /status codes: (\d+) 2xx/;
    my ($ptwo) = `cat $body.out` =~ /status codes: (\d+) 2xx/;
    ok t_cmp(($two // 0) + ($ptwo // 0), $n + 60,
             "$pool: $n GETs at c4 and 60 large POSTs on a pool of two workers, the runner "
             . "slowed: all 200")
        or print STDERR map { "# $_\n" } split /\n/, $o . `cat $body.out`;
    open my $tf, '<', $trace or die "$trace: $!";
    my $relayed = () = do { local $/; <$tf> } =~ /^\d*\s*read\(\d+, "CP\\1\\3/mg;
    ok t_cmp($relayed > 0 ? 1 : 0, 1,
             "$pool: the POSTs went through the runner ($relayed BEGINs read at the start of a read)");
    ok t_cmp($secs < 50 ? 1 : 0, 1,
             sprintf('%s: none waited for a response that never came (%.1f s in all)', $pool, $secs));
    unlink $body, "$body.out";
    open my $lf, '<', $logf or die "$logf: $!";
    seek $lf, $before, 0;
    return <$lf>;
}

my @log = slowed('small', 4000);
my @junk = grep { /CGIPLUS2025:/ } @log;
ok t_cmp(scalar(@junk), 0, 'the runner read no output of a worker a child held (no CGIPLUS2025)')
    or print STDERR map { "# $_" } @junk;

@log = slowed('lap', 20000);
my @full = grep { /CGIPLUS1731:/ } @log;
ok t_cmp(scalar(@full), 0, 'lap: at most 5 of 8 places taken, none refused (no CGIPLUS1731)')
    or print STDERR map { "# $_" } @full[0 .. ($#full < 4 ? $#full : 4)];
my @lap = grep { /CGIPLUS2025:/ } @log;
ok t_cmp(scalar(@lap), 0, 'lap: no CGIPLUS2025 either') or print STDERR map { "# $_" } @lap;
