# Issue 22, part 2: a FastCGI application that recycles itself (t/src/
# fcgi_app with FCGI_APP_EXIT_AFTER=5: it exits 0 after 5 requests, as
# php-cgi after PHP_FCGI_MAX_REQUESTS, or a CGI::Fast loop with a count),
# on a pool of 2 under 4 clients, so that requests queue and are granted
# workers on their way out. Such an exit is no crash: no crash-loop backoff
# (2066) and no 503 from it; a request that a worker took and did not
# answer fails (502, as under mod_fcgid), one granted a worker that had
# closed before taking it goes to the runner again, never a 503. And a
# FastCGI request's variables, which libfcgi makes the program's whole
# environment, carry a PATH (as mod_fcgid's do).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(curl url);

plan tests => 6, need { 'needs libfcgi (Debian package libfcgi-dev)' => -x 't/src/fcgi_app' };

my $vars = Apache::Test::config()->{vars};
my $logf = "$vars->{t_logs}/error_log";
sub log_from { open my $fh, '<', $logf or return ''; seek $fh, $_[0], 0; local $/; <$fh> // '' }

my ($code, undef, $body) = curl(url('/fcgi/app'));
ok t_cmp("$code " . (($body =~ /^(PATH=.*)$/m)[0] // ''), '200 PATH=/usr/local/bin:/usr/bin:/bin',
         'a FastCGI request carries the default PATH, which libfcgi makes the environment');

my $off = -s $logf;
my ($clients, $each) = (4, 100);
pipe my $rd, my $wr or die "pipe: $!";
my @kids;
for (1 .. $clients) {
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        close $rd;
        my $out = '';
        for (1 .. $each) {
            my ($c, undef, $b) = curl(url('/fcgix/app'));
            $out .= $c == 200 && $b !~ /^pid=\d+$/m ? "bad " : "$c ";
        }
        print $wr "$out\n";
        exit 0;
    }
    push @kids, $pid;
}
close $wr;
my @codes = map { split ' ' } <$rd>;
waitpid $_, 0 for @kids;
my %n;
$n{$_}++ for @codes;
my $summary = join ', ', map { "$_: $n{$_}" } sort keys %n;
ok t_cmp(scalar(@codes), $clients * $each, "$clients clients, $each requests each, all answered ($summary)");
ok t_cmp($n{503} // 0, 0, 'none answered 503: the exits are no crash loop, a closed worker granted is no overload');
ok t_cmp(scalar(grep { $_ ne '200' && $_ ne '502' } @codes), 0,
         'each is 200 with its body, or 502 (a worker took it and exited without an answer)');
my $log = log_from($off);
ok t_cmp(scalar(() = $log =~ /CGIPLUS(?:2066|1069|1061|1714)\b/g), 0,
         'no crash-loop backoff (2066, 1069) and no overload (1061, 1714) in the log');
# After its 5th request; the count in the log may miss the 5th when the
# exit is reaped before the request's end is counted (a child's request).
my $ended = () = $log =~ m{CGIPLUS2028: worker pid \d+ of \S+/fcgi_app ended: exited \(exited with code 0\) after [45] requests}g;
ok t_cmp($ended >= ($clients * $each) / 5 / 2 ? 1 : 0, 1,
         "the workers recycled themselves after 5 requests, exit code 0 ($ended such ends logged)");
