# Deploy detection by inotify in the runner (issue 11): no stat of the
# script per request; a script replaced while no request is in flight is
# seen at once (its idle old worker goes within 2 s, the next request meets
# the new code), on the relay and on the direct path; a symlink swapped to
# a new target (ln -sfn through a rename), and a new file renamed over that
# target in its own directory, are seen too. A path too deep to watch falls
# back to a stat per request, logged once (2086), and still sees deploys.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path);
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget version_script strace_on strace_off);

plan tests => 17, need { 'needs strace' => system('command -v strace >/dev/null 2>&1') == 0 };

my $vars = Apache::Test::config()->{vars};
my $logf = "$vars->{t_logs}/error_log";

open my $pf, '<', "$vars->{t_logs}/httpd.pid" or die "pid file: $!";
chomp(my $parent = <$pf>);
my ($runner) = grep { `cat /proc/$_/comm` =~ /cgiplus/ }
               grep { /^\d+$/ } map { (split ' ')[0] } `ps --ppid $parent -o pid=`;
ok t_cmp($runner ? 1 : 0, 1, "the runner is a child of httpd (pid @{[$runner // '?']})");

sub script { version_script($_[0]) }

# A new file written beside the target, then renamed over it.
sub deploy {
    my ($path, $v) = @_;
    open my $fh, '>', "$path.new" or die "$path.new: $!";
    print $fh script($v);
    close $fh;
    chmod 0755, "$path.new";
    rename "$path.new", $path or die "rename $path: $!";
}

sub served {
    my ($url) = @_;
    my $r = hget($url, timeout => 10);
    my ($v, $pid) = $r->{body} =~ /version=(\d+) pid=(\d+)/;
    return ($r->{code}, $v // -1, $pid // 0);
}

# Whether pid is gone within secs (the runner reaps its workers).
sub gone_within {
    my ($pid, $secs) = @_;
    my $end = time + $secs;
    while (time < $end) {
        return 1 unless kill 0, $pid;
        sleep 0.05;
    }
    return kill(0, $pid) ? 0 : 1;
}

# strace -f on the runner (every thread) while code runs: the trace's text.
sub traced {
    my ($code, $what) = @_;
    my $out = "$vars->{t_logs}/strace-watch-$$.txt";
    unlink $out;
    my $st = strace_on($runner, '-f', '-s', '4096', '-e', "trace=$what", '-o', $out);
    my $res = $code->();
    sleep 0.3;
    strace_off($st);
    open my $fh, '<', $out or die "$out: $!";
    return (do { local $/; <$fh> }, $res);
}

my $dir = "$vars->{t_logs}/deployw";
make_path("$dir/v1", "$dir/v2");
chmod 0755, $dir, "$dir/v1", "$dir/v2";

# (a) 200 relayed requests: no stat of the script by the runner.
deploy("$dir/app.pl", 1);
my ($code, $v, $pid) = served('/deployw/app.pl');
ok t_cmp("$code $v", '200 1', 'version 1 is served');
my ($text, $codes) = traced(sub {
    my %c;
    $c{(served('/deployw/app.pl'))[0]}++ for 1 .. 200;
    return join ',', map { "$_=$c{$_}" } sort keys %c;
}, '%%stat,read,recvfrom,recvmsg');
ok t_cmp($codes, '200=200', '200 relayed requests answered 200 while the runner is traced');
my $reads = () = $text =~ /^\d+\s+(?:read|recvfrom|recvmsg)\(/mg;
ok t_cmp($reads >= 200 ? 1 : 0, 1, "the trace saw the runner work ($reads reads)");
my @stats = $text =~ /^(\d+\s+\w*stat\w*\(.*deployw\/app\.pl.*)$/mg;
ok t_cmp(scalar(@stats), 0, 'no stat of the script during 200 relayed requests'
         . (@stats ? ": $stats[0]" : ''));

# (b) a deploy with no request in flight: the idle old worker goes at once.
deploy("$dir/app.pl", 2);
ok t_cmp(gone_within($pid, 2), 1, "the idle old worker (pid $pid) is gone within 2 s");
my ($code2, $v2, $pid2) = served('/deployw/app.pl');
ok t_cmp("$code2 $v2", '200 2', 'the next request meets version 2');

# The same on the direct path: the runner's new identity is in the table,
# so httpd's own check agrees with it.
my $ddir = "$vars->{t_logs}/deploywd";
make_path($ddir);
chmod 0755, $ddir;
deploy("$ddir/app.pl", 1);
served('/deploywd/app.pl') for 1 .. 3;
my (undef, $dv, $dpid) = served('/deploywd/app.pl');
ok t_cmp($dv, 1, 'direct path: version 1 is served');
deploy("$ddir/app.pl", 2);
ok t_cmp(gone_within($dpid, 2), 1, "direct path: the idle old worker (pid $dpid) is gone within 2 s");
my @dv = map { (served('/deploywd/app.pl'))[1] } 1 .. 5;
ok t_cmp("@dv", '2 2 2 2 2', 'direct path: the next requests meet version 2');

# (c) a symlink swap: link.pl -> v1/app.pl, then -> v2/app.pl by renaming a
# new link over it (ln -sfn); then a new file renamed over v2/app.pl, seen
# through the watch on the target's own directory.
deploy("$dir/v1/app.pl", 11);
deploy("$dir/v2/app.pl", 12);
unlink "$dir/link.pl";
symlink 'v1/app.pl', "$dir/link.pl" or die "symlink: $!";
my (undef, $lv, $lpid) = served('/deployw/link.pl');
ok t_cmp($lv, 11, 'through the symlink: version 11');
symlink 'v2/app.pl', "$dir/link.pl.new" or die "symlink: $!";
rename "$dir/link.pl.new", "$dir/link.pl" or die "rename: $!";
ok t_cmp(gone_within($lpid, 2), 1, "symlink swapped: the old worker (pid $lpid) is gone within 2 s");
my (undef, $lv2, $lpid2) = served('/deployw/link.pl');
ok t_cmp($lv2, 12, 'symlink swapped: the next request meets the new target (version 12)');
deploy("$dir/v2/app.pl", 13);
ok t_cmp(gone_within($lpid2, 2), 1, "target replaced: the old worker (pid $lpid2) is gone within 2 s");
ok t_cmp((served('/deployw/link.pl'))[1], 13, 'target replaced: the next request meets version 13');

# A path of more names than the runner watches for one script: it falls
# back to a stat per request (logged once), which still sees a deploy.
my $deep = join '/', $dir, ('d') x 34;
make_path($deep);
my $url = '/deployw/' . join('/', ('d') x 34) . '/app.pl';
deploy("$deep/app.pl", 21);
my $log_before = -s $logf;
served($url) for 1 .. 2;
open my $lf, '<', $logf or die "$logf: $!";
seek $lf, $log_before, 0;
my $said = grep { /CGIPLUS2086/ && /\/d\/d\/app\.pl/ } <$lf>;
ok t_cmp($said, 1, 'a path too deep to watch is logged once (2086)');
deploy("$deep/app.pl", 22);
ok t_cmp((served($url))[1], 22, 'too deep to watch: the next request still meets the new version');
