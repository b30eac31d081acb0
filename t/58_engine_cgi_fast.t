# A CGI::Fast program (munin-cgi-graph, munin-cgi-html) given to the Perl
# engine as a CGI script, as under mod_cgi: each request its own answer.
# Run as CGI, FCGI's Accept answers 0 once and then -1, once per process
# (a C static in FCGI.xs): on one engine, every run after the process's
# first served nothing, which was 500. Found running Debian's munin CGIs
# under `CGIplusCompat on` + `CGIplusEngine perl`. Two such scripts, in
# turn, on one engine (one worker), direct and relayed, each as mod_cgid
# answers it (its pid aside), the engine the same process throughout.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(curl url);

my @seq = (['fast_a.pl?x=1'], ['fast_a.pl?x=2'], ['fast_b.pl?x=3'], ['fast_a.pl?x=4'], ['fast_b.pl?x=5'],
           ['fast_a.pl', '--data', 'x=posted'], ['fast_b.pl?x=7']);
plan tests => 2 * (@seq + 1) + 1,
    need { 'needs CGI::Fast (libcgi-fast-perl)' => !system('perl -MCGI::Fast -e1 2>/dev/null') };

sub answer {
    my ($path, @args) = @_;
    my ($code, $h, $body) = curl(@args, url($path));
    my $pid = $body =~ s/ pid=(\d+)$//m ? $1 : 0;
    return ("$code " . ($h->{'content-type'} // '-') . "\n$body", $pid);
}

my $logf = Apache::Test::config()->{vars}{t_logs} . '/error_log';
my $log_at = -s $logf;

for my $loc (qw(eperl eperlr)) {
    my %pids;
    for my $step (@seq) {
        my ($script, @args) = @$step;
        my ($want) = answer("/cgidperl/fast/$script", @args);
        my ($got, $pid) = answer("/$loc/fast/$script", @args);
        $pids{$pid}++;
        ok t_cmp($got, $want, "/$loc/fast/$script @args: as under mod_cgid");
    }
    ok t_cmp(join(' ', keys %pids) =~ /\A[1-9]\d*\z/ ? 1 : 0, 1,
             "/$loc/: one engine served them all (pids: @{[sort keys %pids]})");
}

# Nothing on their stderr, under mod_cgid nor on the engine.
open my $lf, '<', $logf or die "$logf: $!";
seek $lf, $log_at, 0;
my @stderr = grep { /fast_[ab]\.pl/ && /stderr|AH01215/ } <$lf>;
ok t_cmp(scalar(@stderr), 0, 'nothing logged from their stderr' . (@stderr ? ": $stderr[0]" : ''));
