# The Perl engine leaves nothing in TMPDIR (found by a long soak): CGI::Compile
# compiles each script through TMPDIR/cgi_compile_PID and removes that
# directory only in an END block, which an engine the runner stops with
# SIGTERM (idle, recycled, deployed) or kills never runs; an engine per
# recycling left one directory in /tmp for ever. /eperltmp/ recycles its
# engine after every request (CGIplusMaxRequests 1) and points TMPDIR at a
# directory of the test's.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use lib 't/htdocs/apps', 't/htdocs/pool/lib';
use PoolTest qw(wait_for);
use AppTest qw(curl url);

plan tests => 5, need { 'needs CGI::Compile (libcgi-compile-perl)' =>
                        !system('perl -MCGI::Compile -e1 2>/dev/null') };

my $vars = Apache::Test::config()->{vars};
my $tmp = "$vars->{t_logs}/enginetmp";
remove_tree($tmp);
make_path($tmp);
chmod 01777, $tmp;

my @pids;
for my $i (1 .. 3) {
    my ($code, undef, $body) = curl(url('/eperltmp/env.pl'));
    my ($pid) = $body =~ /^pid=(\d+)$/m;
    push @pids, $pid if $code == 200 && $pid;
}
ok t_cmp(scalar(@pids), 3, 'three requests, each answered by the Perl engine');
my %distinct = map { $_ => 1 } @pids;
ok t_cmp(scalar(keys %distinct), 3, 'each by an engine of its own (recycled after one request)');

# The engines are stopped by the runner (SIGTERM) once they have served.
my $gone = wait_for(sub { !grep { kill 0, $_ } @pids }, 60, 0.2);
ok t_cmp($gone ? 1 : 0, 1, 'the three engines have ended');

opendir my $dh, $tmp or die "$tmp: $!";
my @left = sort grep { !/^\.\.?$/ } readdir $dh;
closedir $dh;
ok t_cmp("@left", '', "nothing left in the engines' TMPDIR");
my @in_tmp = grep { -e "/tmp/cgi_compile_$_" } @pids;
ok t_cmp("@in_tmp", '', 'nor a cgi_compile_PID directory of theirs in /tmp');
