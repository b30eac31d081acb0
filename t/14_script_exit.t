# A persistent worker that exits after its header fails only its own request,
# and visibly: the client gets a cut response, never one that looks
# complete. A worker that reads less than its body leaves the next request
# intact.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET POST);
use IO::Socket::INET;

plan tests => 9;

my $cfg = Apache::Test::config();
my $u = '/scripts/partial.pl';

# Raw HTTP/1.1 so that we see exactly how the response ends.
my $s = IO::Socket::INET->new(PeerAddr => $cfg->{vars}{servername},
                              PeerPort => $cfg->{vars}{port}, Timeout => 10)
    or die "connect: $!";
print $s "GET $u?die HTTP/1.1\r\nHost: localhost\r\n\r\n";
my $raw = '';
while (sysread($s, my $buf, 65536)) { $raw .= $buf; }
close $s;
my ($head, $body) = split /\r\n\r\n/, $raw, 2;
ok t_cmp($head, qr{^HTTP/1\.1 200 }, 'the header had gone out: status 200');
ok t_cmp($head, qr{^Transfer-Encoding: chunked}mi, 'chunked (no length to trust)');
ok t_cmp($body // '', qr/partial-/, 'the output before the exit reached the client');
ok t_cmp(($body // '') =~ /\r\n0\r\n\r\n\z/ ? 'complete' : 'cut', 'cut',
         'no final chunk: the response does not look complete');

my $r = POST $u, content => 'next request';
ok t_cmp($r->code, 200, 'the next request is served');
ok t_cmp($r->content, 'next request', 'by a new worker, intact');
my $pid = $r->header('X-Pid');

# Short read: 10 of 100000 bytes taken; the rest must not reach the next one.
$r = POST "$u?short", content => 'A' x 100_000;
ok t_cmp($r->content, 'A' x 10, 'the script took 10 bytes of its body');
$r = POST $u, content => 'B' x 5000;
ok t_cmp($r->content eq 'B' x 5000 ? 'intact' : substr($r->content, 0, 20), 'intact',
         'the next request gets its own body, not the leftover');
ok t_cmp($r->header('X-Pid'), $pid, 'on the same worker');
