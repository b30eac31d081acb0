# An engine given a request that names no script file it can run: a client
# of the runner that is not mod_cgiplus (docs/PROTOCOL.md: the runner runs
# standalone too) may send a SCRIPT_FILENAME that is not an absolute path.
# Each engine ends that request without output (the module would answer
# 500, 1324), says why (3216, 3232) on the request's stderr, and serves
# the next request in the same process. Spoken to the suite's runner over
# its socket, as httpd speaks to it.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/pool/lib';
use PoolTest qw(wire_connect wire_request wire_frames);

plan tests => 2 * 4;

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my %engine = (python => ["$top/lib/python/cgiplus-engine-python", 3216, 'py'],
              perl => ["$top/lib/perl/cgiplus-engine-perl", 3232, 'pl']);
my $s = wire_connect();
my $reqid = 0;

# (stdout, stderr, END outcome, pid from STARTED)
sub run {
    my ($engine, $file) = @_;
    wire_request($s, ++$reqid, [script => $engine, uri => '/wire', site => 'cgiplus-wire-test:80'],
                 [SCRIPT_FILENAME => $file, REQUEST_METHOD => 'GET', QUERY_STRING => '',
                  CONTENT_LENGTH => 0, GATEWAY_INTERFACE => 'CGI/1.1']);
    my @f = wire_frames($s, 1000, 20);
    my $out = join '', map { $_->{payload} } grep { $_->{type} == 6 } @f;
    my $err = join "\n", map { $_->{payload} } grep { $_->{type} == 7 } @f;
    my ($started) = grep { $_->{type} == 14 } @f;
    my $end = @f && $f[-1]{type} == 8 ? $f[-1]{outcome} : -1;
    return ($out, $err, $end, $started ? $f[-1]{pid} : 0);
}

for my $name (sort keys %engine) {
    my ($engine, $id, $ext) = @{ $engine{$name} };
    my $good = "$vars->{documentroot}/engine/$name/hello.$ext";
    my (undef, undef, undef, $pid) = run($engine, $good);
    my ($out, $err, $end, $pid2) = run($engine, "hello.$ext");
    ok t_cmp("$end [$out]", '0 []', "$name engine, SCRIPT_FILENAME not absolute: the request ends without output");
    ok t_cmp($err, qr{CGIPLUS$id: cgiplus-engine-$name: no script to run: SCRIPT_FILENAME '?hello\.$ext'? is not an absolute path},
             "and says why ($id)");
    my ($out3, undef, $end3, $pid3) = run($engine, $good);
    ok t_cmp($end3 == 0 && $out3 =~ /\AContent-Type: /i ? 'served' : "$end3 [$out3]", 'served', 'the next request is served');
    ok t_cmp("$pid2 $pid3", "$pid $pid", 'by the same engine');
}
