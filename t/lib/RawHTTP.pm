package RawHTTP;
# A plain HTTP/1.1 client for comparing responses byte for byte: the status
# line as sent (LWP and curl refuse "HTTP/1.1 099"), the headers in order,
# the body de-chunked. One request per connection (Connection: close).
use strict;
use warnings;
use IO::Socket::INET;
use Exporter 'import';
our @EXPORT_OK = qw(raw_request);

# raw_request(host:port, method, path, [headers...], body, {options}) ->
#   { status_line, code, headers => [[name, value]...], body, raw }
# Options: proto ('HTTP/1.0'), keepalive (no Connection: close: the server
# ends the connection after the client's end of file), half_close
# (shutdown(SHUT_WR) once the request is sent, as nc -N does).
sub raw_request {
    my ($hostport, $method, $path, $hdrs, $body, $opt) = @_;
    $opt ||= {};
    my $s = IO::Socket::INET->new(PeerAddr => $hostport, Timeout => 20)
        or return { status_line => "connect failed: $!", code => 0, headers => [], body => '' };
    my $proto = $opt->{proto} || 'HTTP/1.1';
    my $req = "$method $path $proto\r\nHost: $hostport\r\n"
        . ($opt->{keepalive} ? '' : "Connection: close\r\n");
    my @h = @{ $hdrs || [] };
    while (my ($k, $v) = splice @h, 0, 2) { $req .= "$k: $v\r\n" }
    $req .= "Content-Length: " . length($body) . "\r\n" if defined $body;
    $req .= "\r\n" . ($body // '');
    print $s $req;
    $s->flush;
    shutdown($s, 1) if $opt->{half_close};
    my $data = '';
    local $SIG{ALRM} = sub { die "timeout\n" };
    alarm 30;
    eval { while (sysread($s, my $buf, 65536)) { $data .= $buf } };
    alarm 0;
    close $s;
    my ($head, $rest) = split /\r\n\r\n/, $data, 2;
    $rest //= '';
    my ($sl, @lines) = split /\r\n/, $head // '';
    my @headers = map { /^([^:]+):\s*(.*)$/ ? [$1, $2] : [$_, undef] } @lines;
    my %h = map { lc $_->[0] => $_->[1] } @headers;
    if (($h{'transfer-encoding'} // '') =~ /chunked/i && $method ne 'HEAD') {
        my $out = '';
        while ($rest =~ s/^([0-9a-fA-F]+)[^\r\n]*\r\n//) {
            my $n = hex $1;
            last if $n == 0;
            $out .= substr($rest, 0, $n, '');
            $rest =~ s/^\r\n//;
        }
        $rest = $out;
    }
    my ($code) = ($sl // '') =~ m{^HTTP/\d\.\d (\S+)};
    return { status_line => $sl // '', code => $code // '', headers => \@headers, body => $rest,
             raw => $data };
}

1;
