# A CGI::Fast program (munin-cgi-graph, munin-cgi-html) given to the Perl
# engine as a CGI script, as under mod_cgi: each request its own answer.
# Run as CGI, FCGI's Accept answers 0 once and then -1, once per process
# (a C static in FCGI.xs): on one engine, every run after the process's
# first served nothing, which was 500. Found running Debian's munin CGIs
# under `CGIplusCompat on` + `CGIplusEngine perl`. Two such scripts, in
# turn, on one engine (one worker), direct and relayed, each as mod_cgid
# answers it (its pid aside), the engine the same process throughout.
# fast_c.pl is gitweb.fcgi's shape (`use CGI qw(-nosticky)`, CGI::Fast
# required at run time): CGI::Fast->new resets CGI.pm's pragmas from
# @CGI::SAVED_SYMBOLS, which CGI::Fast's own `use CGI` emptied, so its
# form is sticky (.cgifields) under mod_cgid; the engine put the script's
# -nosticky back after that reset too (no .cgifields: every gitweb.fcgi
# page differed), and fast_d.pl, compiled between two of its runs, must
# not lend it its own `use CGI qw(-nosticky)`.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(curl url);

my @seq = (['fast_a.pl?x=1'], ['fast_a.pl?x=2'], ['fast_b.pl?x=3'], ['fast_a.pl?x=4'], ['fast_b.pl?x=5'],
           ['fast_a.pl', '--data', 'x=posted'], ['fast_b.pl?x=7']);
# On engines of their own (/eperlfast/, /eperlfastr/): fast_c.pl first,
# as gitweb.fcgi alone in its pool.
my @seq_c = (['fast_c.pl?x=8'], ['fast_c.pl?x=9'], ['fast_d.pl?x=10'], ['fast_c.pl?x=11'], ['fast_d.pl?x=12'],
             ['fast_c.pl', '--data', 'x=13'], ['fast_a.pl?x=14'], ['fast_c.pl?x=15']);
plan tests => 2 * (@seq + 1) + 2 * (@seq_c + 1) + 2 + 1,
    need { 'needs CGI::Fast (libcgi-fast-perl)' => !system('perl -MCGI::Fast -e1 2>/dev/null') };

sub answer {
    my ($path, @args) = @_;
    my ($code, $h, $body) = curl(@args, url($path));
    my $pid = $body =~ s/ pid=(\d+)$//m ? $1 : 0;
    return ("$code " . ($h->{'content-type'} // '-') . "\n$body", $pid);
}

my $logf = Apache::Test::config()->{vars}{t_logs} . '/error_log';
my $log_at = -s $logf;

for my $run ([[qw(eperl eperlr)], \@seq], [[qw(eperlfast eperlfastr)], \@seq_c]) {
    my ($locs, $steps) = @$run;
    for my $loc (@$locs) {
        my %pids;
        for my $step (@$steps) {
            my ($script, @args) = @$step;
            my ($want) = answer("/cgidperl/fast/$script", @args);
            my ($got, $pid) = answer("/$loc/fast/$script", @args);
            $pids{$pid}++;
            ok t_cmp($got, $want, "/$loc/fast/$script @args: as under mod_cgid");
        }
        ok t_cmp(join(' ', keys %pids) =~ /\A[1-9]\d*\z/ ? 1 : 0, 1,
                 "/$loc/: one engine served them all (pids: @{[sort keys %pids]})");
    }
}
# What the comparisons above rest on: fast_c.pl's form is sticky (mod_cgid
# gives .cgifields), fast_d.pl's not.
ok t_cmp((curl(url('/cgidperl/fast/fast_c.pl')))[2], qr/name="\.cgifields" value="sr"/,
         'fast_c.pl: its form is sticky under mod_cgid');
ok t_cmp((curl(url('/cgidperl/fast/fast_d.pl')))[2] =~ /\.cgifields/ ? 'sticky' : 'not sticky', 'not sticky',
         'fast_d.pl: its form is not');

# Nothing on their stderr, under mod_cgid nor on the engine.
open my $lf, '<', $logf or die "$logf: $!";
seek $lf, $log_at, 0;
my @stderr = grep { /fast_[a-d]\.pl/ && /stderr|AH01215/ } <$lf>;
ok t_cmp(scalar(@stderr), 0, 'nothing logged from their stderr' . (@stderr ? ": $stderr[0]" : ''));
