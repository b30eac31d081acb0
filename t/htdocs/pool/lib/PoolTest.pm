package PoolTest;
# Helpers of the supervisor tests (t/4x_*.t): concurrent raw HTTP requests
# with timing, the runner's status as JSON, and a client of the runner's
# own wire protocol (docs/PROTOCOL.md part 1) for what httpd does not show.
use strict;
use warnings;
use Exporter qw(import);
use IO::Socket::INET;
use IO::Socket::UNIX;
use IO::Select;
use JSON::PP ();
# The status page's JSON covers every pool the suite made (about 200 KB by
# the end): JSON::PP took about a second a poll on a loaded machine, longer
# than what many tests wait for. JSON::XS (run-tests installs it) decodes it
# in milliseconds; the result is the same.
my $JSON = eval { require JSON::XS; JSON::XS->new } || JSON::PP->new;
use Time::HiRes qw(time sleep);
use Apache::Test ();
use POSIX ();
use File::Path ();

our @EXPORT_OK = qw(strace_on strace_off hstart hfinish hfinish_all hget hmany status pool_of script_requests wait_for wire_connect wire_key wire_key_file wire_hello
                    wire_request wire_frames wire_status wire_send wire_kv runner_pid standalone_runner
                    version_script configtest await_trace child_of kept_get kept_direct);

my $vars = Apache::Test::config()->{vars};

# Starts a request (on the connection sock => S, or a new one); returns a
# handle to pass to hfinish.
sub hstart {
    my ($path, %o) = @_;
    my $s = $o{sock} // IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $vars->{port},
                                              Proto => 'tcp', Timeout => 5) or die "connect: $!";
    $s->autoflush(1);
    my $method = $o{method} // 'GET';
    my $body = $o{body} // '';
    # HTTP/1.1: a response cut short then shows as a missing last chunk.
    my $req = "$method $path HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
    $req .= "Content-Length: " . length($body) . "\r\n" if $method eq 'POST';
    print $s "$req\r\n$body";
    return { sock => $s, t0 => time, path => $path, buf => '' };
}

# Reads the response to its end (or until timeout s); returns a hash:
# code, headers (lower-case names), body, secs, complete (ended cleanly).
sub hfinish {
    my ($h, $timeout) = @_;
    $timeout //= 30;
    my $sel = IO::Select->new($h->{sock});
    my $end = time + $timeout;
    my $eof = 0;
    while (time < $end) {
        last unless $sel->can_read($end - time);
        my $n = sysread $h->{sock}, my $chunk, 65536;
        if (!$n) { $eof = 1; last }
        $h->{buf} .= $chunk;
    }
    $h->{secs} = time - $h->{t0};
    close $h->{sock};
    my ($head, $body) = split /\r\n\r\n/, $h->{buf}, 2;
    my %r = (secs => $h->{secs}, body => $body // '', code => 0, headers => {}, eof => $eof);
    if (($head // '') =~ m{^HTTP/\d\.\d (\d{3})}) {
        $r{code} = $1;
        for (split /\r\n/, $head) {
            $r{headers}{lc $1} = $2 if /^([^:]+):\s*(.*)$/;
        }
    }
    # Complete: the whole Content-Length, or the last chunk, arrived.
    my $cl = $r{headers}{'content-length'};
    if (lc($r{headers}{'transfer-encoding'} // '') eq 'chunked') {
        my ($raw, $out, $done) = ($r{body}, '', 0);
        while ($raw =~ s/^([0-9a-fA-F]+)[^\r]*\r\n//) {
            my $n = hex $1;
            if ($n == 0) { $done = 1; last }
            last if length $raw < $n + 2;
            $out .= substr($raw, 0, $n);
            substr($raw, 0, $n + 2) = '';
        }
        $r{body} = $out;
        $r{complete} = $done;
    } else {
        $r{complete} = $eof && defined $cl && length($r{body}) == $cl ? 1 : 0;
    }
    return \%r;
}

sub hget { my ($path, %o) = @_; return hfinish(hstart($path, %o), $o{timeout}) }

# Nonzero once buf holds a whole response: its Content-Length, or its
# last chunk (a response whose script's output and end a child read
# apart goes chunked, its last chunk a write of its own).
sub _whole_response {
    my ($buf) = @_;
    my $end = index($buf, "\r\n\r\n");
    return 0 if $end < 0;
    my ($head, $rest) = (substr($buf, 0, $end), substr($buf, $end + 4));
    return length($rest) >= ($head =~ /^Content-Length: (\d+)/mi ? $1 : 0)
        unless $head =~ /^Transfer-Encoding: chunked/mi;
    while ($rest =~ s/^([0-9a-fA-F]+)[^\r]*\r\n//) {
        my $n = hex $1;
        return $rest =~ /^\r\n/ ? 1 : 0 if $n == 0;
        return 0 if length($rest) < $n + 2;
        substr($rest, 0, $n + 2) = '';
    }
    return 0;
}

# A GET on the kept-alive connection $s, read to its end (nothing of it
# left for the next request's); returns the raw response. Dies if none
# comes whole within 60 s, rather than hold the suite.
sub kept_get {
    my ($s, $path) = @_;
    $s->autoflush(1);
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    my ($buf, $sel, $end) = ('', IO::Select->new($s), time + 60);
    while (!_whole_response($buf)) {
        die "no whole answer to $path within 60 s\n" unless $sel->can_read($end - time);
        sysread($s, $buf, 65536, length $buf) or die "no answer to $path: $!";
    }
    return $buf;
}

# GETs on the kept-alive connection $s (sprintf($fmt, N), N from 1 to 5)
# until one is not relayed: no 2021 for it in the error log $log. A
# worker's first request and a child's first of the pool go through the
# runner, and which child takes a new connection is the MPM's; after this,
# $s's child takes the pool's worker itself. Returns the last raw response.
sub kept_direct {
    my ($s, $fmt, $log) = @_;
    my $raw;
    for my $n (1 .. 5) {
        my ($path, $off) = (sprintf($fmt, $n), -s $log // 0);
        $raw = kept_get($s, $path);
        open my $fh, '<', $log or die "$log: $!";
        seek $fh, $off, 0;
        last if do { local $/; <$fh> // '' } !~ m{CGIPLUS2021: request \d+ \(\Q$path\E\)};
    }
    return $raw;
}

# Reads several responses at once, so each one's time is its own.
sub hfinish_all {
    my (@h) = @_;
    my $sel = IO::Select->new(map { $_->{sock} } @h);
    my %by = map { fileno($_->{sock}) => $_ } @h;
    my $end = time + 30;
    while ($sel->count && time < $end) {
        for my $s ($sel->can_read($end - time)) {
            my $h = $by{fileno $s};
            my $n = sysread $s, my $chunk, 65536;
            if ($n) { $h->{buf} .= $chunk; next }
            $h->{done_at} = time;
            $sel->remove($s);
        }
    }
    return map { my $t = $_->{done_at} // time; my $r = hfinish($_, 0.01);
                 $r->{secs} = $t - $_->{t0}; $r->{eof} = 1; $r } @h;
}

# Runs requests concurrently; returns the results in the order given.
sub hmany {
    my (@paths) = @_;
    return hfinish_all(map { hstart($_) } @paths);
}

sub status {
    my $r = hget('/cgiplus-status?json');
    die "status: $r->{code}\n" unless $r->{code} == 200;
    return $JSON->decode($r->{body});
}

# The live (not retired) pool whose configured env names POOL_tag (the
# status page shows the names of CGIplusSetEnv variables, never values).
sub pool_of {
    my ($st, $tag, %o) = @_;
    for my $p (@{ $st->{pools} }) {
        next if $p->{retired} && !$o{retired};
        return $p if grep { $_ eq "POOL_$tag" } @{ $p->{settings}{env} };
    }
    return undef;
}

# The requests counted by every pool (retired ones too) whose program
# matches re, and how many such pools there are: an engine has one pool
# per set of settings, however many scripts it runs.
sub script_requests {
    my ($st, $re) = @_;
    my @p = grep { ($_->{script} // '') =~ $re } @{ $st->{pools} };
    my $n = 0;
    $n += $_->{counters}{requests} for @p;
    return ($n, scalar @p);
}

# Polls cond (a sub) until true or timeout s; returns its last value.
# A persistent Perl script that answers "version=V pid=PID"; with $slow it
# takes 20 ms more and ends with "done" (a deploy can land mid-response).
sub version_script {
    my ($v, $slow) = @_;
    my $lib = "$vars->{top_dir}/lib/perl";
    my ($use, $more) = $slow ? ("use Time::HiRes qw(sleep);\n", "    sleep 0.02;\n    print \"done\\n\";\n")
                             : ('', '');
    return <<"PERL";
#!/usr/bin/perl
use strict;
use warnings;
use lib '$lib';
use CGIplus;
${use}\$| = 1;
while (CGIplus::accept()) {
    print "Content-Type: text/plain\\n\\n";
    print "version=$v pid=\$\$\\n";
${more}    CGIplus::finish();
}
PERL
}

sub wait_for {
    my ($cond, $timeout, $step) = @_;
    my $end = time + ($timeout // 5);
    my $v;
    while (1) {
        $v = $cond->();
        return $v if $v || time >= $end;
        sleep($step // 0.05);
    }
}

# Waits, 30 s at most, until strace (pid $tracer) has attached to every
# thread in @tids (one gone meanwhile counts as done), instead of a fixed
# sleep a loaded machine can outlast. Dies if it has not: a count of calls
# from an untraced window would be 0, and pass.
sub await_trace {
    my ($tracer, @tids) = @_;
    wait_for(sub {
        for my $t (@tids) {
            open my $fh, '<', "/proc/$t/status" or next;
            local $/;
            my ($tp) = (<$fh> // '') =~ /^TracerPid:\s+(\d+)/m;
            return 0 unless ($tp // 0) == $tracer;
        }
        return 1;
    }, 30, 0.05) or die "strace (pid $tracer) did not attach to all of @tids within 30 s\n";
    return 1;
}

# strace (quiet, output to /dev/null unless @args has -o) on every thread
# of $pid (or of each pid in an array ref) with @args (an injected delay, a
# count), attached before it returns; its pid, for strace_off.
sub strace_on {
    my ($pid, @args) = @_;
    my @tids = map { my $p = $_; map { m{/(\d+)$} ? $1 : () } glob("/proc/$p/task/*") }
               ref $pid ? @$pid : $pid;
    my @out = grep({ $_ eq '-o' } @args) ? () : ('-o', '/dev/null');
    my $st = fork // die "fork: $!";
    if (!$st) {
        open STDERR, '>', '/dev/null';
        exec 'strace', '-qq', @args, @out, map { ('-p', $_) } @tids;
        exit 127;
    }
    await_trace($st, @tids);
    return $st;
}

sub strace_off { my ($st) = @_; kill 'INT', $st; waitpid $st, 0 }

# The runner's pid: the suite's, or that of the private httpd in DIR.
sub runner_pid {
    my ($dir) = @_;
    open my $fh, '<', ($dir // $vars->{t_logs}) . "/cgiplus-runner.pid" or return 0;
    my $p = <$fh> // '';
    return $p =~ /^(\d+)/ ? $1 : 0;
}

# The httpd child that serves the connection whose client end is $sock.
# The server's end is matched by both its addresses: Linux gives one
# ephemeral port to connections to different servers, and the other shards'
# httpds run beside ours.
sub child_of {
    my ($sock) = @_;
    my ($mine, $theirs) = ($sock->sockport, $sock->peerport);
    for (`ss -tnpH state established 2>/dev/null`) {
        return $1 if /\s127\.0\.0\.1:$theirs\s+127\.0\.0\.1:$mine\s+users:\(\("[^"]*apach[^"]*",pid=(\d+)/;
    }
    return 0;
}

# ---- the wire protocol ----

sub _frame {
    my ($type, $flags, $reqid, $payload) = @_;
    return pack('CCCCnnNN', 0x43, 0x50, 1, $type, $flags, 0, $reqid, length $payload) . $payload;
}

sub _kv {
    my (@kv) = @_;
    my $out = '';
    while (my ($k, $v) = splice @kv, 0, 2) {
        $out .= pack('nN', length $k, length $v) . $k . $v;
    }
    return $out;
}

# The runner's connection key as httpd holds it (CGIplusRunnerKeyFile of the
# test configuration; root reads it, as httpd's parent does).
sub wire_key_file { return "$vars->{t_conf}/generated/runner.key" }

# A standalone runner (as run by a service manager, docs/RUNNER.md): writes
# $dir/$name.conf (mode 0600) from $conf plus the key_file line every such
# runner needs, starts cgiplus-runner on it with stderr appended to
# $dir/$name.log, returns its pid; whatever is still running is stopped at
# exit.
my @standalone;
sub standalone_runner {
    my ($dir, $name, $conf) = @_;
    open my $fh, '>', "$dir/$name.conf" or die "$dir/$name.conf: $!";
    print $fh 'key_file ' . wire_key_file() . "\n" . $conf;
    close $fh;
    chmod 0600, "$dir/$name.conf";
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        open STDERR, '>>', "$dir/$name.log" or POSIX::_exit(127);
        open STDOUT, '>', '/dev/null';
        exec "$vars->{top_dir}/runner/cgiplus-runner", '--config', "$dir/$name.conf" or POSIX::_exit(127);
    }
    push @standalone, $pid;
    return $pid;
}
END {
    local $?;
    for my $pid (@standalone) {
        next if waitpid($pid, POSIX::WNOHANG()) != 0;
        kill 'TERM', $pid;
        waitpid $pid, 0;
    }
}

sub wire_key {
    open my $fh, '<', wire_key_file() or die wire_key_file() . ": $!";
    my $hex = <$fh> // '';
    $hex =~ /^([0-9a-f]{64})$/ or die "bad key file\n";
    return pack('H*', $1);
}

# The HELLO frame: version, reserved, pid, then the 32-byte key.
sub wire_hello { my ($key) = @_; return _frame(1, 0, 0, pack('nnN', 1, 0, $$) . $key) }

sub wire_connect {
    my ($path) = @_;
    $path //= "$vars->{t_logs}/cgiplus-runner.sock";
    # ready before the connect: the HELLO follows it at once, as the
    # module's does (a runner short of descriptors closes one not there)
    my $hello = wire_hello(wire_key());
    my $s = IO::Socket::UNIX->new(Peer => $path, Type => SOCK_STREAM)
        or die "runner socket $path: $!";
    $s->autoflush(1);
    print $s $hello;
    my @f = wire_frames($s, 1, 5);
    die "no HELLO_ACK\n" unless @f && $f[0]{type} == 2;
    return $s;
}

# Sends one request: begin is a list of BEGIN key/values, params of CGI
# variables; the body is empty.
sub wire_request {
    my ($s, $reqid, $begin, $params) = @_;
    print $s _frame(3, 0, $reqid, _kv(@$begin)) . _frame(4, 1, $reqid, _kv(@$params))
        . _frame(5, 1, $reqid, '');
}

sub wire_send { my ($s, @f) = @_; print $s _frame(@f) }

# A kv list (BEGIN, PARAMS) from name, value pairs.
sub wire_kv { return _kv(@_) }

# The runner's status over the wire (STATUS, STATUS_REPLY frames), decoded.
sub wire_status {
    my ($s, %kv) = @_; # format => 'html' or 'metrics' (the text), pool => id
    print $s _frame(12, 0, 1, _kv(%kv));
    my @f = wire_frames($s, 1000, 5, until => sub { $_[0]{type} == 13 && $_[0]{flags} & 1 });
    my $text = join '', map { $_->{payload} } grep { $_->{type} == 13 } @f;
    return ($kv{format} // 'json') eq 'json' ? $JSON->decode($text) : $text;
}

# Reads up to n frames (or until END, or timeout s): a list of hashes
# type, flags, reqid, payload (and outcome for END).
sub wire_frames {
    my ($s, $n, $timeout, %o) = @_;
    my (@f, $buf);
    $buf = '';
    my $sel = IO::Select->new($s);
    my $end = time + ($timeout // 5);
    while (@f < $n && time < $end) {
        while (length $buf >= 16) {
            my ($m0, $m1, $v, $type, $flags, undef, $reqid, $len) = unpack('CCCCnnNN', $buf);
            last if length $buf < 16 + $len;
            my $pl = substr($buf, 16, $len);
            substr($buf, 0, 16 + $len) = '';
            my %fr = (type => $type, flags => $flags, reqid => $reqid, payload => $pl);
            @fr{qw(outcome retry pid detail)} = unpack('CxnNN', $pl) if $type == 8;
            push @f, \%fr;
            return @f if @f >= $n || ($type == 8 && !$o{past_end});
            return @f if $o{until} && $o{until}->(\%fr);
        }
        last unless $sel->can_read($end - time);
        my $got = sysread $s, my $chunk, 65536;
        last unless $got;
        $buf .= $chunk;
    }
    return @f;
}


# httpd -t on a minimal configuration that loads the module and the runner
# of the build tree, then $body; in $dir (made if needed). (exit status,
# output).
sub configtest {
    my ($dir, $body) = @_;
    my $libexec = `$vars->{apxs} -q LIBEXECDIR`;
    chomp $libexec;
    File::Path::make_path($dir);
    my $conf = "$dir/httpd.conf";
    open my $fh, '>', $conf or die "$conf: $!";
    print $fh <<"CONF";
ServerRoot $dir
ServerName 127.0.0.1
Listen 127.0.0.1:$vars->{port}
PidFile $dir/httpd.pid
ErrorLog $dir/error_log
DefaultRuntimeDir $dir
<IfModule !mpm_event_module>
<IfModule !mpm_prefork_module>
<IfModule !mpm_worker_module>
LoadModule mpm_event_module $libexec/mod_mpm_event.so
</IfModule>
</IfModule>
</IfModule>
LoadModule cgiplus_module $vars->{top_dir}/mod_cgiplus/.libs/mod_cgiplus.so
CGIplusRunnerPath $vars->{top_dir}/runner/cgiplus-runner
$body
CONF
    close $fh;
    my $out = `$vars->{httpd} -t -f $conf 2>&1`;
    return ($? >> 8, $out);
}
1;
