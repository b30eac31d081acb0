# A long upload that never stalls is not cut by httpd's Timeout (issue 10,
# hole 11): here Timeout is 3 s and the script reads 16 MiB in 64 KiB steps
# 30 ms apart (about 8 s). The runner tells the module it sees progress
# (the PROGRESS frame, docs/PROTOCOL.md), so the module keeps waiting; a
# script that stalls for longer than Timeout still gets 504.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use File::Temp qw(tempfile);
use Time::HiRes qw(time);

plan tests => 5;

Apache::TestRequest::module('cgiplus_body');
my $base = 'http://' . Apache::TestRequest::hostport();
my ($fh, $file) = tempfile(UNLINK => 1);
print $fh 'x' x (16 * 1024 * 1024);
close $fh;

sub post {
    my ($path, @hdr) = @_;
    my $t0 = time;
    my $out = `curl -s -m 60 -H 'Expect:' @hdr --data-binary \@$file -w '\\n%{http_code}' '$base$path'`;
    my ($body, $code) = $out =~ /\A(.*)\n(\d+)\z/s ? ($1, $2) : ($out, 0);
    return ($code, $body, time - $t0);
}

my ($code, $body, $secs) = post('/pool/body/slowread.pl', "-H 'Transfer-Encoding: chunked'");
ok t_cmp($code, 200, sprintf('a chunked 16 MiB upload read over %.1f s (Timeout 3 s): 200', $secs));
ok t_cmp($body, qr/^read=16777216 /, 'the script read all of it');
ok t_cmp($secs > 4 ? 1 : 0, 1, 'and it did take longer than Timeout');
($code, $body, $secs) = post('/pool/body/slowread.pl');
ok t_cmp("$code " . ($body =~ /^read=(\d+)/ ? $1 : -1), '200 16777216',
         sprintf('the same with Content-Length (%.1f s)', $secs));
# A stall is still a stall: sleeping 5 s before the first read.
($code) = post('/pool/body/slowread.pl?gap=5&chunk=16777216');
ok t_cmp($code, 504, 'a script that stalls past Timeout: 504');
