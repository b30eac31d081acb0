#!/usr/bin/perl
# A hostile script (t/47_security.t): it runs as httpd's user, the runner's
# socket is that user's, and it tries to drive the runner with the frames
# httpd would send: a request that runs /usr/bin/touch MARKER as another
# user with a forged REMOTE_USER, then STATUS (every pool's settings).
# Query: sock=PATH&marker=PATH. Also run from the command line (plain CGI,
# QUERY_STRING in the environment) as a local process of httpd's user.
# It reports, per attempt, what the runner sent back, and how many of
# httpd's and the runner's processes let it read their memory.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;
use IO::Socket::UNIX;
use Socket;

$| = 1;
$SIG{PIPE} = 'IGNORE';

sub frame {
    my ($type, $flags, $reqid, $payload) = @_;
    return pack('CCCCnnNN', 0x43, 0x50, 1, $type, $flags, 0, $reqid, length $payload) . $payload;
}

sub kv {
    my (@kv) = @_;
    my $out = '';
    while (my ($k, $v) = splice @kv, 0, 2) {
        $out .= pack('nN', length $k, length $v) . $k . $v;
    }
    return $out;
}

# Reads until end of file, an END frame (type 8) at the start of a frame,
# or 3 s of silence; returns (bytes, eof).
sub collect {
    my ($c) = @_;
    my ($got, $eof) = ('', 0);
    my $rin = '';
    vec($rin, fileno($c), 1) = 1;
    while (select(my $r = $rin, undef, undef, 3) > 0) {
        my $n = sysread $c, my $buf, 65536;
        if (!$n) {
            $eof = 1;
            last;
        }
        $got .= $buf;
        my $off = 0;
        while (length($got) - $off >= 16) {
            my $type = ord(substr($got, $off + 3, 1));
            my $len = unpack('N', substr($got, $off + 12, 4));
            return (length $got, 0) if $type == 8;
            $off += 16 + $len;
        }
    }
    return (length $got, $eof);
}

# Sends first (a HELLO or nothing) and a request, then STATUS; returns what
# came back: "N bytes, eof" once the runner closed, or "N bytes, open".
sub attempt {
    my ($sock, $first, $marker) = @_;
    my $c = IO::Socket::UNIX->new(Peer => $sock, Type => SOCK_STREAM)
        or return "connect failed: $!";
    my $req = frame(3, 0, 7, kv(script => '/usr/bin/touch', mode => 'cgi', uri => '/x',
                                user => 'daemon'))
            . frame(4, 1, 7, kv(QUERY_STRING => $marker, REMOTE_USER => 'admin',
                                CONTENT_LENGTH => 0, REQUEST_METHOD => 'GET'))
            . frame(5, 1, 7, '');
    syswrite $c, $first . $req;
    my ($n, $eof) = collect($c);
    if (!$eof) {
        syswrite $c, frame(12, 0, 8, '');
        my ($n2, $eof2) = collect($c);
        ($n, $eof) = ($n + $n2, $eof2);
    }
    return "$n bytes, " . ($eof ? 'eof' : 'open');
}

# The pids of httpd's and the runner's processes (not this one): with
# ?httpd=PID those of that server only (it and its children), since other
# servers of the machine are not the test's to judge.
sub server_pids {
    my ($top) = ($ENV{QUERY_STRING} // '') =~ /\bhttpd=(\d+)/;
    opendir my $d, '/proc' or return;
    return grep {
        my ($cf, $sf);
        open($cf, '<', "/proc/$_/comm") && (<$cf> // '') =~ /^(apache2|httpd|cgiplus-runner)$/
            && (!$top || $_ == $top
                || (open($sf, '<', "/proc/$_/stat") && ((<$sf> // '') =~ /\)\s+\S+\s+(\d+)/)[0] == $top))
    } grep { /^\d+$/ && $_ != $$ } readdir $d;
}

# Processes of httpd and the runner whose memory or environment this
# process may open (it must be none).
sub readable_memory {
    my ($tried, $open) = (0, 0);
    -d '/proc' or return 'no /proc';
    for my $pid (server_pids()) {
        $tried++;
        for my $f ('mem', 'environ') {
            if (open my $fh, '<', "/proc/$pid/$f") {
                $open++;
                last;
            }
        }
    }
    return "$open of $tried";
}

# The descriptors this process holds (the one reading the list left out):
# "N:what" each; a memfd or anything past 0-3 would be a leak.
sub own_fds {
    opendir my $d, '/proc/self/fd' or return 'no /proc/self/fd';
    my @l;
    for my $fd (sort { $a <=> $b } grep { /^\d+$/ } readdir $d) {
        my $what = readlink("/proc/self/fd/$fd") // '?';
        next if $what =~ m{^/proc/\d+/fd$};
        push @l, "$fd:$what";
    }
    return join ' ', @l;
}

# Names in /dev/shm that look like ours (there must be none).
sub shm_names {
    opendir my $d, '/dev/shm' or return 0;
    return scalar grep { /cgiplus|cgp/i } readdir $d;
}

# httpd's and the runner's processes whose descriptors or mappings this
# process may list (it must be none): the table and the channels live there.
sub readable_fds {
    my ($tried, $open) = (0, 0);
    -d '/proc' or return 'no /proc';
    for my $pid (server_pids()) {
        $tried++;
        if (opendir my $fd, "/proc/$pid/fd") {
            $open++ if grep { /^\d+$/ } readdir $fd;
        } elsif (open my $fh, '<', "/proc/$pid/maps") {
            $open++ if defined <$fh>;
        }
    }
    return "$open of $tried";
}

while (CGIplus::accept()) {
    my %q = map { /^([^=]*)=(.*)$/ ? ($1, $2) : () } split /&/, $ENV{QUERY_STRING} // '';
    my $m = $q{marker} // '/nonexistent';
    my $key0 = "\0" x 32;
    print "Content-Type: text/plain\n\n";
    print "uid=$<\n";
    print "nohello=", attempt($q{sock}, '', "$m-1"), "\n";
    print "oldhello=", attempt($q{sock}, frame(1, 0, 0, pack('nnN', 1, 0, $$)), "$m-2"), "\n";
    print "badkey=", attempt($q{sock}, frame(1, 0, 0, pack('nnN', 1, 0, $$) . $key0), "$m-3"), "\n";
    print "memory=", readable_memory(), "\n";
    print "fds=", own_fds(), "\n";
    print "shm=", shm_names(), "\n";
    print "procfds=", readable_fds(), "\n";
    CGIplus::finish();
}
