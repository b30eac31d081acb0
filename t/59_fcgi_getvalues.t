# A FastCGI application whose client leaves mid-response, shaped like
# Debian 12's ruby-fcgi (t/htdocs/fcgi/getvalues.py: fcgi.rb dies on an
# FCGI_GET_VALUES that names a variable). The runner learns that the
# application is back in accept() by a GET_VALUES on a new connection;
# one that names FCGI_MAX_CONNS & co. killed such a worker after every
# client that left (its warm state lost, a Ruby traceback in the log),
# where mod_fcgid, which never sends GET_VALUES, keeps the process. The
# probe asks for nothing now: the same process serves on, on the direct
# path (/fcgi/) and relayed (/fcgir/), each a pool of one worker, through
# the fcgid-script drop-in and under mod_fcgid (private httpds); also an
# application answering GET_VALUES as Go's net/http/fcgi does.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Copy qw(copy);
use IO::Socket::INET;
use Socket qw(SOL_SOCKET SO_LINGER);
use lib 't/lib', 't/htdocs/apps', 't/htdocs/pool/lib';
use PoolTest qw(strace_on strace_off runner_pid);
use PrivateHttpd qw(private_stop fresh_dir libexec);
use FcgidPeer qw(fcgid_app_start);
use FreePort qw(free_port);
use AppTest qw(write_file);

plan tests => 25, need { 'needs python3' => -x '/usr/bin/python3',
                        'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so',
                        'needs strace' => system('command -v strace >/dev/null 2>&1') == 0 };

my $vars = Apache::Test::config()->{vars};
my $logf = "$vars->{t_logs}/error_log";
my $dir = "$vars->{t_logs}/fcgi-getvalues";

sub text { open my $fh, '<', $_[0] or return ''; local $/; <$fh> }

sub pid_of {
    my ($url, $n) = @_;
    my $out = `curl -s --max-time 60 '$url?n=$n'`;
    return $out =~ /^n=\Q$n\E pid=(\d+)$/m ? $1 : "no answer ($out)";
}

# A client that reads the header and a little of a 16 MB answer, then
# leaves with a reset. The application sends the rest only after that
# (hold=FILE): written at once, all of it could be in httpd's response
# spool before a slow client left, and its leaving reached no worker (a
# loaded machine: 4 runs of 5 failed so). Not under mod_fcgid, which
# holds the first 64 KiB back (FcgidOutputBufferSize) and whose log is not
# read.
my $holds = 0;
sub leave {
    my ($port, $path, $held) = @_;
    my $hold = $held ? "$vars->{t_logs}/gv-hold-$$-" . ++$holds : '';
    unlink $hold if $hold;
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port, Timeout => 30)
        or die "connect: $!";
    print $s "GET $path?size=16777216&n=leaver&hold=$hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    my $got = '';
    while ($got !~ /\r\n\r\n.{100}/s) {
        my $n = sysread($s, $got, 4096, length $got);
        last unless $n;
    }
    setsockopt($s, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0));
    close $s;
    if ($hold) {
        open my $fh, '>', $hold or die "$hold: $!";
        close $fh;
    }
    return $got =~ m{^HTTP/1\.1 (\d+)} ? $1 : 'none';
}

# The same process before and after a client left (polled: the worker is
# busy until the application is back in accept()).
sub survives {
    my ($port, $path, $name, $log) = @_;
    my $url = "http://127.0.0.1:$port$path";
    my $before = pid_of($url, "before$$");
    my $mark = $log ? length text($log) : 0;
    my $code = leave($port, $path, defined $log);
    if ($log && $path =~ /-go\.py$/) { # until its late empty record is out, so it comes while idle
        my $m = $path =~ m{^/gv/} ? "$dir/app/marks" : '';
        for (1 .. 120) { last if text($m) =~ /^late $before$/m; select undef, undef, undef, 0.25 }
    }
    my $after = 'none';
    for my $i (1 .. 60) {
        $after = pid_of($url, "after$$-$i");
        last if $after =~ /^\d+$/;
        select undef, undef, undef, 0.5;
    }
    ok t_cmp("$code $after", "200 $before", "$name: the client left mid-response; the same process serves on");
    return unless $log;
    my $rest = substr(text($log), $mark);
    ok t_cmp($rest =~ /CGIPLUS(?:1070|3610|2506)\b/ ? 1 : 0, 1, "$name: the client's leaving reached the worker (1070/3610/2506)");
    my @died = $rest =~ /(CGIPLUS2028: worker pid $before [^\n]*)/g;
    ok t_cmp(scalar(@died) ? $died[0] : 'none', 'none', "$name: the worker did not end for it");
}

survives($vars->{port}, '/fcgi/getvalues.py', 'direct path', $logf);
survives($vars->{port}, '/fcgir/getvalues.py', 'relayed', $logf);

# The application's answer to the probe while the runner is between its
# wait and its timers: each epoll_wait of the runner returns 100 ms late
# (strace inject), so the answer, written meanwhile, is seen first by the
# probe's timer. It used to close the connection then (the GET_VALUES was
# taken), and a ruby-fcgi-shaped program waiting there died (CI, once).
{
    my $st = strace_on(runner_pid(), '-e', 'trace=epoll_wait,epoll_pwait',
                       map { ('-e', "inject=$_:delay_exit=100000") } qw(epoll_wait epoll_pwait));
    # (the answer lands in that delay in about two runs of three)
    survives($vars->{port}, '/fcgi/getvalues.py', "direct path, the runner late to its events ($_)", $logf)
        for 1 .. 3;
    strace_off($st);
}

# The fcgid-script drop-in (mod_fcgid not loaded) and mod_fcgid itself,
# the same lines, in a private httpd.
my $port = $ENV{CGIPLUS_PRIVATE_PORT} // free_port();
for my $peer (0, 1) {
    fresh_dir($dir);
    mkdir "$dir/app";
    chmod 0755, "$dir/app";
    write_file("$dir/app/marks", '', 0666);
    for my $f ('getvalues.py', 'getvalues-go.py') {
        copy('t/htdocs/fcgi/getvalues.py', "$dir/app/$f") or die "copy: $!";
        chmod 0755, "$dir/app/$f";
    }
    copy('t/htdocs/fcgi/fcgirec.py', "$dir/app/fcgirec.py") or die "copy: $!";
    my $name = fcgid_app_start($dir, $port, $peer, '/gv/', "FcgidMaxProcessesPerClass 1\n");
    survives($port, '/gv/getvalues.py', $name, $peer ? undef : "$dir/error_log");
    # Go's answer: its values, then an empty record (never while idle)
    survives($port, '/gv/getvalues-go.py', "$name, Go's way", $peer ? undef : "$dir/error_log");
    private_stop("$dir/httpd.pid");
}
