package RawHTTP;
# A plain HTTP/1.1 client for comparing responses byte for byte: the status
# line as sent (LWP and curl refuse "HTTP/1.1 099"), the headers in order,
# the body de-chunked. One request per connection (Connection: close).
use strict;
use warnings;
use IO::Socket::INET;
use Exporter 'import';
our @EXPORT_OK = qw(raw_request leave_early read_response);

# raw_request(host:port, method, path, [headers...], body, {options}) ->
#   { status_line, code, headers => [[name, value]...], body, raw }
# Options: proto ('HTTP/1.0'), host (the Host header's value, instead of
# host:port; '' for none), keepalive (no Connection: close: the server
# ends the connection after the client's end of file), half_close
# (shutdown(SHUT_WR) once the request is sent, as nc -N does).
sub raw_request {
    my ($hostport, $method, $path, $hdrs, $body, $opt) = @_;
    $opt ||= {};
    my $s = IO::Socket::INET->new(PeerAddr => $hostport, Timeout => 20)
        or return { status_line => "connect failed: $!", code => 0, headers => [], body => '' };
    my $proto = $opt->{proto} || 'HTTP/1.1';
    my $host = $opt->{host} // $hostport;
    my $req = "$method $path $proto\r\n" . ($host eq '' ? '' : "Host: $host\r\n")
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

# leave_early(port, path): a GET on 127.0.0.1:port whose client reads the
# first 8 KiB of the response and leaves (closes); whether it got them.
sub leave_early {
    my ($port, $path) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 10) or return 0;
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    my ($got, $buf) = (0, '');
    while ($got < 8192) {
        my $n = sysread($s, $buf, 65536);
        last unless $n;
        $got += $n;
    }
    close $s;
    return $got >= 8192;
}

# read_response(socket, \buffer, method): reads one response of a
# kept-alive connection, what it read past it left in the buffer (a socket
# undef: from the buffer alone); a 1xx before it is skipped (its status
# lines in interim). {code, status_line, head => {lc name => value},
# headers => [[name, value]...], interim => [...], body}, or undef.
sub read_response {
    my ($sock, $bufref, $method, $interim) = @_;
    $interim //= [];
    my $more = sub {
        return 0 unless $sock;
        my $got = sysread($sock, my $c, 65536);
        return 0 unless $got;
        $$bufref .= $c;
        return 1;
    };
    my $need = sub {
        my ($n) = @_;
        while (length($$bufref) < $n) { $more->() or return 0 }
        return 1;
    };
    my $i;
    while (($i = index($$bufref, "\r\n\r\n")) < 0) { $more->() or return undef }
    my $head = substr($$bufref, 0, $i + 4, '');
    my ($sl, @l) = split /\r\n/, $head;
    my ($code) = $sl =~ m{^HTTP/\d\.\d (\d+)};
    $code //= 0;
    if ($code =~ /^1/) {            # 100 Continue
        push @$interim, $sl;
        return read_response($sock, $bufref, $method, $interim);
    }
    my @headers = map { /^([^:]+):\s*(.*)$/ ? [$1, $2] : [$_, undef] } @l;
    my %h = map { defined $_->[1] ? (lc $_->[0] => $_->[1]) : () } @headers;
    my $body = '';
    if ($method eq 'HEAD' || $code == 204 || $code == 304) {
    } elsif (($h{'transfer-encoding'} // '') =~ /chunked/i) {
        while (1) {
            while ($$bufref !~ /\r\n/) { $need->(length($$bufref) + 1) or last }
            $$bufref =~ s/^([0-9a-fA-F]+)[^\r\n]*\r\n// or last;
            my $n = hex $1;
            if (!$n) { $need->(2); substr($$bufref, 0, 2, ''); last }
            $need->($n + 2);
            $body .= substr($$bufref, 0, $n, '');
            substr($$bufref, 0, 2, '');
        }
    } elsif (defined $h{'content-length'}) {
        $need->($h{'content-length'});
        $body = substr($$bufref, 0, $h{'content-length'}, '');
    } else {
        1 while $more->();
        $body = $$bufref;
        $$bufref = '';
    }
    return { code => $code, status_line => $sl, head => \%h, headers => \@headers, interim => $interim,
             body => $body };
}

1;
